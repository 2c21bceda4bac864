/**
 * The yardstick `bench/device_log_bench.ts` reads beside the device-log reader, in the same
 * rounds: the plain single-threaded byte scanner the toolchain notes measured at 267 MB/s on
 * short rows (`../shared/spec/deno-mcp-toolchain.md`), which the 250 MB/s floor comes
 * from. It reads the file into a 4 MiB buffer, finds commas and line ends, parses field 5 (the
 * cycle count) from its digits and interns field 10 (the zone name) by an FNV-1a hash of its
 * bytes — no pairing, no per-core state, nothing kept per row. A machine whose speed drifts
 * (this VM's does, by a third) moves both figures together, so the ratio of ours to this one
 * is the figure that means something from one day to the next. Prints one JSON line.
 *
 *   deno run --allow-read bench/_plain_scan.ts <profile_log_device.csv>
 */
const NL = 10;
const COMMA = 44;
const ZERO = 48;
const NINE = 57;

const started = performance.now();
using file = await Deno.open(Deno.args[0], { read: true });
const buf = new Uint8Array(4 << 20);
const zones = new Map<number, number>();
let filled = 0; // bytes in buf: an unfinished line carried over, then what was read
let total = 0;
let lines = 0;
let cycleSum = 0;
while (true) {
  const n = await file.read(buf.subarray(filled));
  if (n === null && filled === 0) break;
  const end = filled + (n ?? 0);
  total += n ?? 0;
  // Lines wholly in the buffer; at the end of the file the last one even without a newline.
  let lineStart = 0;
  let field = 0;
  let cycles = 0;
  let hash = 0x811c9dc5;
  for (let i = 0; i < end; i++) {
    const b = buf[i];
    if (b === NL) {
      if (lines >= 2) {
        cycleSum += cycles;
        zones.set(hash, (zones.get(hash) ?? 0) + 1);
      }
      lines++;
      lineStart = i + 1;
      field = 0;
      cycles = 0;
      hash = 0x811c9dc5;
    } else if (b === COMMA) field++;
    else if (field === 5) {
      if (b >= ZERO && b <= NINE) cycles = cycles * 10 + (b - ZERO);
    } else if (field === 10) hash = Math.imul(hash ^ b, 0x01000193);
  }
  if (n === null) {
    if (lineStart < end) {
      if (lines >= 2) {
        cycleSum += cycles;
        zones.set(hash, (zones.get(hash) ?? 0) + 1);
      }
      lines++;
    }
    break;
  }
  buf.copyWithin(0, lineStart, end);
  filled = end - lineStart;
  if (filled === buf.length) throw new Error("a line longer than the 4 MiB buffer");
}
console.log(JSON.stringify({
  ms: performance.now() - started,
  bytes: total,
  rows: Math.max(0, lines - 2),
  zones: zones.size,
  checksum: cycleSum,
}));
