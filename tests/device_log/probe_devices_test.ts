/**
 * load_report's device count of a device log: the distinct PCIe slots with a data row in what
 * the probe reads — all of a small log; the start and end of a large one, labelled as a sample —
 * and the full read's exact count.
 */
import assert from "node:assert/strict";
import { tempDir } from "../_support/dirs.ts";
import { probeDeviceLog, type SampleSize } from "../../src/device_log/probe.ts";
import { PREAMBLE, readLog, V4, v4, v4Log } from "./_logs.ts";

async function devicesOf(dir: string, text: string, size?: SampleSize): Promise<number | null> {
  const path = `${dir}/profile_log_device.csv`;
  await Deno.writeTextFile(path, text);
  return (await probeDeviceLog(path, undefined, size))!.devices;
}

Deno.test("a sampled log counts the devices of its start and end; the full read counts all", async () => {
  // Prevents the last device of a log written device by device going unseen by load_report,
  // a sampled count passing for an exact one, and the full read's count missing a device.
  await using dir = await tempDir();
  const rows = (slot: number, n: number) =>
    Array.from(
      { length: n },
      (_, i) => v4(slot, 1, 1, "BRISC", 100 + i, 5, "BRISC-FW", i % 2 ? "ZONE_END" : "ZONE_START"),
    );
  // Devices 0 … 5 in turn, 400 rows each (~20 KiB a device).
  const text = v4Log([0, 1, 2, 3, 4, 5].flatMap((slot) => rows(slot, 400)));
  const size = { head: 8 << 10, tail: 8 << 10 };
  const path = `${dir.path}/profile_log_device.csv`;
  await Deno.writeTextFile(path, text);
  const probe = (await probeDeviceLog(path, undefined, size))!;
  assert.equal(probe.devices, 2, "device 0 at the start, device 5 at the end");
  assert.deepEqual(probe.sample, { head: 8 << 10, tail: 8 << 10, bytes: text.length });
  const whole = (await probeDeviceLog(path))!;
  assert.deepEqual([whole.devices, whole.sample], [6, null], "a small log is read whole");
  assert.equal((await readLog(dir.path, text, { sample: size })).devices, 6);
});

Deno.test("the probe counts whole-number slots only, and none for a log without rows", async () => {
  // Prevents a malformed slot counting as a device, or a header-only log claiming one.
  await using dir = await tempDir();
  const rows = [
    v4(3, 1, 1, "BRISC", 100, 5, "BRISC-FW", "ZONE_START"),
    v4(" 3", 1, 1, "BRISC", 200, 5, "BRISC-FW", "ZONE_END"),
    v4("x7", 1, 1, "BRISC", 100, 5, "BRISC-FW", "ZONE_START"),
    "",
    v4(31, 1, 1, "BRISC", 100, 5, "BRISC-FW", "ZONE_START"),
  ];
  assert.equal(await devicesOf(dir.path, [PREAMBLE, V4, ...rows].join("\r\n")), 2);
  assert.equal(await devicesOf(dir.path, `${PREAMBLE}\n${V4}\n`), 0);
});

Deno.test("the probe counts devices of a log that is not plain ASCII", async () => {
  // Prevents the decoded text's count going wrong once a row carries a multi-byte character.
  await using dir = await tempDir();
  const rows = [
    v4(0, 1, 1, "BRISC", 100, 5, "BRISC-FW", "ZONE_START", '{"op":"é"}'),
    v4(5, 1, 1, "BRISC", 100, 5, "BRISC-FW", "ZONE_START", '{"op":"日本"}'),
  ];
  assert.equal(await devicesOf(dir.path, [PREAMBLE, V4, ...rows].join("\n") + "\n"), 2);
});
