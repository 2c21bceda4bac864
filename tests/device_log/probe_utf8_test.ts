/**
 * load_report's one pass over the device log checks UTF-8 on bytes: plain-ASCII reads skip the
 * decoder, so these pin what must still be caught — and what must not be — once the head is
 * past: a bad byte megabytes in, a character split across two reads, a character cut short at
 * a read's end, and one cut short at the end of the file.
 */
import assert from "node:assert/strict";
import { tempDir, writeFiles } from "../_support/dirs.ts";
import { probeDeviceLog } from "../../src/device_log/probe.ts";
import { PREAMBLE, V4, v4 } from "./_logs.ts";

const MiB = 1 << 20;

/** A valid log of about `bytes` bytes of ASCII rows, as bytes, for editing. */
function asciiLog(bytes: number): Uint8Array {
  const rows = [PREAMBLE, V4];
  let size = PREAMBLE.length + V4.length + 2;
  for (let i = 0; size < bytes; i++) {
    const row = v4(
      0,
      1,
      1,
      "BRISC",
      1000 + i,
      1,
      "BRISC-KERNEL",
      i % 2 ? "ZONE_END" : "ZONE_START",
    );
    rows.push(row);
    size += row.length + 1;
  }
  return new TextEncoder().encode(rows.join("\n") + "\n");
}

async function probeOf(bytes: Uint8Array) {
  await using dir = await tempDir();
  await writeFiles(dir.path, { "profile_log_device.csv": bytes });
  return (await probeDeviceLog(`${dir.path}/profile_log_device.csv`))!;
}

Deno.test("an invalid byte megabytes into an ASCII log is still found", async () => {
  // Prevents the ASCII fast path waving through a log whose later bytes are not UTF-8.
  const bytes = asciiLog(3 * MiB);
  bytes[2 * MiB + 17] = 0xff;
  const probe = await probeOf(bytes);
  assert.match(String(probe.problem), /not UTF-8 text \(an invalid byte within bytes 2097152-/);
});

Deno.test("a character split across two reads is valid UTF-8", async () => {
  // Prevents the second half of a character, read alone, being called invalid.
  const bytes = asciiLog(2 * MiB);
  bytes.set([0xe2, 0x82, 0xac], MiB - 1); // € across the first read's end
  const probe = await probeOf(bytes);
  assert.equal(probe.problem, null);
});

Deno.test("a character cut short at a read's end, before ASCII, is invalid", async () => {
  // Prevents a lead byte at the end of one read passing because the next read is ASCII.
  const bytes = asciiLog(2 * MiB);
  bytes[MiB - 1] = 0xe2;
  const probe = await probeOf(bytes);
  // Found in the second read, where the character should have gone on.
  assert.match(String(probe.problem), /an invalid byte within bytes 1048576-2097152/);
});

Deno.test("a character cut short at the end of the file is invalid", async () => {
  // Prevents a truncated last character passing once the decoder is skipped.
  const bytes = asciiLog(2 * MiB);
  bytes[bytes.length - 1] = 0xe2;
  const probe = await probeOf(bytes);
  assert.match(String(probe.problem), /ends inside a multi-byte character/);
});
