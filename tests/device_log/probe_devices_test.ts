/**
 * load_report's device count of a device log: the distinct PCIe slots with a data row, read
 * in the probe's one pass, wherever a row falls across the probe's reads.
 */
import assert from "node:assert/strict";
import { tempDir } from "../_support/dirs.ts";
import { probeDeviceLog } from "../../src/device_log/probe.ts";
import { PREAMBLE, V4, v4 } from "./_logs.ts";

/** The probe's read size (probe.ts reads the file 1 MiB at a time). */
const CHUNK = 1 << 20;

async function devicesOf(dir: string, text: string): Promise<number | null> {
  const path = `${dir}/profile_log_device.csv`;
  await Deno.writeTextFile(path, text);
  return (await probeDeviceLog(path))!.devices;
}

Deno.test("the probe counts a device whose first row straddles one of its reads", async () => {
  // Prevents a slot split across two reads being lost or misread (1 and 2 for slot 12).
  await using dir = await tempDir();
  const row = v4(0, 1, 1, "BRISC", 100, 5, "BRISC-FW", "ZONE_START");
  const head = `${PREAMBLE}\n${V4}\n`;
  for (const shift of [-3, -2, -1, 0, 1, 2]) {
    // Rows of slot 0 up to just before the boundary, padded so slot 12's row starts at it.
    let text = head;
    while (text.length + row.length + 1 < CHUNK + shift - 40) text += `${row}\n`;
    text += `${
      row.replace(
        "kernel.cc,",
        `kernel.cc,${"x".repeat(CHUNK + shift - text.length - row.length - 1)}`,
      )
    }\n`;
    assert.equal(text.length, CHUNK + shift);
    text += `${v4(12, 1, 1, "BRISC", 100, 5, "BRISC-FW", "ZONE_START")}\n${row}\n`;
    assert.equal(await devicesOf(dir.path, text), 2, `slot 12's row at ${CHUNK + shift}`);
  }
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
