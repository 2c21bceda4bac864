/**
 * The device-log bench divides the reader's speed by the plain byte scanner's: a scanner that
 * skipped or double-read lines would make that ratio a fiction.
 */
import assert from "node:assert/strict";
import { tempDir } from "../_support/dirs.ts";

const SCANNER = new URL("../../bench/_plain_scan.ts", import.meta.url).pathname;
const HEAD = "ARCH: wormhole_b0, CHIP_FREQ[MHz]: 1000\n" +
  "PCIe slot, core_x, core_y, RISC processor type, timer_id, time[cycles since reset], data, " +
  "run host ID, trace id, trace id counter, zone name, type, source line, source file, meta data\n";
const row = (cycles: number, zone: string) =>
  `0, 1, 1, BRISC, 1, ${cycles}, 0, 1024, , , ${zone}, ZONE_START, 10, firmware.cc, `;

async function scan(text: string) {
  await using dir = await tempDir();
  const path = `${dir.path}/profile_log_device.csv`;
  await Deno.writeTextFile(path, text);
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", SCANNER, path],
    stdout: "piped",
  }).output();
  assert.equal(out.code, 0);
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

Deno.test("the plain scanner counts every data row, its zones and cycles, last line unended", async () => {
  // Prevents the yardstick skipping the header lines wrongly or losing an unterminated row.
  const got = await scan(`${HEAD}${row(5, "A")}\n${row(7, "B-KERNEL")}\n${row(11, "A")}`);
  assert.deepEqual([got.rows, got.zones, got.checksum], [3, 2, 23]);
});

Deno.test("the plain scanner reads a line split across its 4 MiB reads once", async () => {
  // Prevents rows at a buffer seam being dropped or counted twice, which would flatter it.
  const lines = 60_000; // ~5.5 MB: past one buffer
  const body = Array.from({ length: lines }, (_, i) => row(i, i % 2 ? "A" : "B")).join("\n");
  const got = await scan(`${HEAD}${body}\n`);
  assert.deepEqual([got.rows, got.zones, got.checksum], [lines, 2, (lines * (lines - 1)) / 2]);
});
