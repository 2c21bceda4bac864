/**
 * UTF-8 where the device log is read. load_report's probe checks the bytes it reads — a small
 * log whole, a large one only at its start and end — and the full read checks every byte as it
 * scans, refusing at the first line that is not UTF-8 with that line's number wherever it falls:
 * megabytes in, in a later slice, across two buffer reads, in a line longer than the buffer, at
 * the end of the file. Plain-ASCII stretches skip the decoder, so these pin what must still be
 * caught, and what must not be.
 */
import assert from "node:assert/strict";
import { tempDir, writeFiles } from "../_support/dirs.ts";
import { probeDeviceLog, type SampleSize } from "../../src/device_log/probe.ts";
import { DeviceLogNotUtf8 } from "../../src/device_log/read.ts";
import { PREAMBLE, readLog, V4, v4 } from "./_logs.ts";

const KiB = 1 << 10;
const MiB = 1 << 20;

/** A valid log of about `bytes` bytes of ASCII rows, as bytes, for editing. */
function asciiLog(bytes: number): Uint8Array {
  const rows = [PREAMBLE, V4];
  let size = PREAMBLE.length + V4.length + 2;
  for (let i = 0; size < bytes; i++) {
    const row = v4(
      i % 3,
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

/** The 1-based line of the file that byte `at` is on. */
function lineAt(bytes: Uint8Array, at: number): number {
  let line = 1;
  for (let k = bytes.indexOf(10); k !== -1 && k < at; k = bytes.indexOf(10, k + 1)) line++;
  return line;
}

async function probeOf(bytes: Uint8Array, size?: SampleSize) {
  await using dir = await tempDir();
  await writeFiles(dir.path, { "profile_log_device.csv": bytes });
  return (await probeDeviceLog(`${dir.path}/profile_log_device.csv`, undefined, size))!;
}

/**
 * The full read's refusal of `bytes` (read as `options` say), or null when it reads; the probe
 * before it reads only the first 8 KiB, as it would of a large log.
 */
async function readRefusal(
  bytes: Uint8Array,
  options: { bufferBytes?: number; slices?: number; workers?: boolean } = {},
): Promise<DeviceLogNotUtf8 | null> {
  await using dir = await tempDir();
  try {
    await readLog(dir.path, bytes, { ...options, sample: { head: 8 * KiB, tail: 0 } });
    return null;
  } catch (e) {
    if (e instanceof DeviceLogNotUtf8) return e;
    throw e;
  }
}

Deno.test("the probe names the first bad line of a log it reads whole", async () => {
  // Prevents a small log that is not UTF-8 being offered to the device-log tools.
  const bytes = asciiLog(200 * KiB);
  bytes[150 * KiB] = 0xff;
  bytes[180 * KiB] = 0xfe;
  const probe = await probeOf(bytes);
  assert.equal(probe.sample, null);
  assert.equal(
    probe.problem,
    "profile_log_device.csv is not UTF-8 text (the first invalid byte is on line " +
      `${lineAt(bytes, 150 * KiB)})`,
  );
});

Deno.test("the probe of a large log reads its start and end only, and says so", async () => {
  // Prevents load_report reading a gigabyte log whole, or claiming it checked what it did not.
  const size = { head: 64 * KiB, tail: 32 * KiB };
  const bytes = asciiLog(MiB);
  const middle = bytes.slice();
  middle[MiB / 2] = 0xff;
  const probe = await probeOf(middle, size);
  assert.equal(probe.problem, null, "a bad byte between the samples is not seen here");
  assert.deepEqual(probe.sample, { head: 64 * KiB, tail: 32 * KiB, bytes: bytes.length });
  const early = bytes.slice();
  early[10 * KiB] = 0xff;
  assert.match(String((await probeOf(early, size)).problem), /on line \d+\)$/);
  const late = bytes.slice();
  late[bytes.length - 100] = 0xff;
  assert.match(
    String((await probeOf(late, size)).problem),
    new RegExp(`last ${32 * KiB} bytes is on the line at byte \\d+\\)$`),
  );
});

Deno.test("the full read refuses a bad byte megabytes in, naming its line, however sliced", async () => {
  // Prevents the sampled probe waving through a log whose later bytes are not UTF-8, or a
  // later slice's line being numbered from the slice rather than the file.
  const bytes = asciiLog(3 * MiB);
  bytes[2 * MiB + 17] = 0xff;
  bytes[2 * MiB + 5000] = 0xff;
  const line = lineAt(bytes, 2 * MiB + 17);
  for (
    const options of [
      { slices: 1 },
      { slices: 3, workers: true },
      { slices: 4, workers: false, bufferBytes: 64 * KiB },
    ]
  ) {
    const refusal = await readRefusal(bytes, options);
    assert.equal(refusal?.line, line, JSON.stringify(options));
    assert.equal(
      refusal?.message,
      `profile_log_device.csv is not UTF-8 text (the first invalid byte is on line ${line})`,
    );
  }
});

Deno.test("a character split across two buffer reads is valid UTF-8", async () => {
  // Prevents the second half of a character, read alone, being called invalid.
  const buffer = 64 * KiB;
  for (const shift of [-2, -1, 0, 1]) {
    const bytes = asciiLog(3 * buffer);
    bytes.set([0xe2, 0x82, 0xac], buffer + shift); // € across a read's end, or near it
    assert.equal(await readRefusal(bytes, { bufferBytes: buffer, slices: 1 }), null, `${shift}`);
  }
});

Deno.test("a character cut short before ASCII is invalid, at a read's end or not", async () => {
  // Prevents a lead byte passing because the bytes after it are ASCII.
  const buffer = 64 * KiB;
  for (const at of [buffer - 1, buffer + 100]) {
    const bytes = asciiLog(3 * buffer);
    bytes[at] = 0xe2;
    const refusal = await readRefusal(bytes, { bufferBytes: buffer, slices: 1 });
    assert.equal(refusal?.line, lineAt(bytes, at), `at ${at}`);
  }
});

Deno.test("a character cut short at the end of the file is invalid", async () => {
  // Prevents a truncated last character passing once the decoder is skipped.
  const bytes = asciiLog(300 * KiB);
  bytes[bytes.length - 1] = 0xe2;
  const lastLine = lineAt(bytes, bytes.length - 1);
  assert.equal((await readRefusal(bytes, { bufferBytes: 64 * KiB }))?.line, lastLine);
  assert.match(String((await probeOf(bytes)).problem), /ends inside a multi-byte character/);
});

Deno.test("a line longer than the read buffer is checked too", async () => {
  // Prevents the bytes of an overlong line, skipped as a row, going unchecked.
  const buffer = 4 * KiB;
  const log = new TextDecoder().decode(asciiLog(64 * KiB));
  const cut = log.indexOf("\n", 20 * KiB);
  const long = `${v4(0, 1, 1, "BRISC", 5, 1, "BRISC-KERNEL", "ZONE_START", "x".repeat(10 * KiB))}`;
  const bytes = new TextEncoder().encode(`${log.slice(0, cut + 1)}${long}\n${log.slice(cut + 1)}`);
  const line = lineAt(bytes, cut + 1);
  assert.equal(await readRefusal(bytes, { bufferBytes: buffer, slices: 1 }), null);
  bytes[cut + 1 + 7 * KiB] = 0xff;
  assert.equal((await readRefusal(bytes, { bufferBytes: buffer, slices: 1 }))?.line, line);
});
