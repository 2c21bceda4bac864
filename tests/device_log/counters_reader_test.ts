/**
 * The counter reader: load_report's probe counting counter rows in what it reads, and the
 * streaming scanner reading each counter row's device, core, run host ID, replay, counter
 * type, ref cnt and value exactly — across buffer boundaries, in every quoting tt-metal and
 * third-party writers use — counting what it cannot read instead of failing, checking every
 * byte is UTF-8 and saying how far it has read.
 */
import assert from "node:assert/strict";
import { tempDir } from "../_support/dirs.ts";
import { probeDeviceLog } from "../../src/device_log/probe.ts";
import {
  COUNTER_PROGRESS_MESSAGE,
  CounterLogChanged,
  CounterLogNotUtf8,
  findMark,
  mergeRepeats,
  scanCounters,
} from "../../src/device_log/_counter_scan.ts";
import { PREAMBLE, V4, v4 } from "./_logs.ts";
import { counterRow } from "../../scripts/make_counter_log.ts";

const site = (device: number, x: number, y: number, run: number, replay = 0) => ({
  device,
  x,
  y,
  run,
  replay,
});

/** A V4 log of `rows` after a kernel zone, so counter rows sit among ordinary ones. */
function logOf(rows: string[]): string {
  const zone = [
    v4(0, 1, 1, "TRISC_1", 100, 7, "TRISC-KERNEL", "ZONE_START"),
    v4(0, 1, 1, "TRISC_1", 900, 7, "TRISC-KERNEL", "ZONE_END"),
  ];
  return [PREAMBLE, V4, ...zone, ...rows].join("\n") + "\n";
}

async function scanText(dir: string, text: string, bufferBytes?: number) {
  const path = `${dir}/profile_log_device.csv`;
  await Deno.writeTextFile(path, text);
  const probe = (await probeDeviceLog(path))!;
  return { probe, scan: await scanCounters(probe, { bufferBytes }) };
}

Deno.test("the probe counts counter rows, and a log without any counts none", async () => {
  // Prevents load_report listing perf_counters for a log with no counters, or hiding it.
  await using dir = await tempDir();
  const rows = [
    counterRow(site(0, 1, 1, 7), "FPU_COUNTER", 1000, 723, 950),
    counterRow(site(0, 1, 1, 7), "SFPU_COUNTER", 1000, 0, 951),
  ];
  assert.equal((await scanText(dir.path, logOf(rows))).probe.counterRows, 2);
  assert.equal((await scanText(dir.path, logOf([]))).probe.counterRows, 0);
});

Deno.test("a counter row a megabyte in, its mark across buffer reads, is counted and read", async () => {
  // Prevents a row split across reads being missed, so a log's only counter row would leave
  // perf_counters unlisted or unread.
  await using dir = await tempDir();
  const head = [PREAMBLE, V4].join("\n") + "\n";
  const row = counterRow(site(0, 1, 1, 7), "FPU_COUNTER", 1000, 723, 950);
  const cut = row.indexOf("counter type") + 5; // the mark's sixth byte starts the second read
  const fillerRow = v4(0, 1, 1, "BRISC", 1, 7, "BRISC-FW", "ZONE_START");
  let text = head;
  while (text.length + fillerRow.length + 1 < (1 << 20) - cut - 200) text += fillerRow + "\n";
  const pad = (1 << 20) - cut - text.length - fillerRow.length - 1;
  text += `${fillerRow}${"x".repeat(pad)}\n${row}\n`;
  assert.equal(text.indexOf("counter type") + 5, 1 << 20);
  const { probe, scan } = await scanText(dir.path, text, 1 << 16);
  assert.equal(probe.counterRows, 1);
  assert.equal(scan.rows, 1);
});

Deno.test("every counter row is read exactly, per device, run host ID, replay and core", async () => {
  // Prevents rows of different devices, replays or cores being merged or misattributed.
  await using dir = await tempDir();
  const rows = [
    counterRow(site(0, 1, 1, 7), "FPU_COUNTER", 1000, 723, 950),
    counterRow(site(0, 2, 1, 7), "FPU_COUNTER", 2000, 500, 950),
    counterRow(site(0, 1, 1, 7, 1), "FPU_COUNTER", 1000, 600, 1950),
    counterRow(site(1, 1, 1, 7), "FPU_COUNTER", 4_294_967_295, 4_000_000_000, 950),
    counterRow(site(0, 1, 1, 8), "THREAD_STALLS_1", 1000, 17, 2950),
  ];
  const { scan } = await scanText(dir.path, logOf(rows));
  assert.equal(scan.rows, 5);
  assert.deepEqual([...scan.ops.keys()], ["0|7", "1|7", "0|8"]);
  const op = scan.ops.get("0|7")!;
  assert.deepEqual(op.replays, ["", "1"]);
  const fpu = op.series.get("FPU_COUNTER")!;
  assert.deepEqual(fpu.req, [723, 500, 600]);
  assert.deepEqual(fpu.ref, [1000, 2000, 1000]);
  assert.deepEqual(fpu.instance, [0, 0, 1]);
  assert.deepEqual(fpu.core, [1 * 1024 + 1, 2 * 1024 + 1, 1 * 1024 + 1]);
  assert.deepEqual(op.riscs, new Set(["BRISC"]));
  const wide = scan.ops.get("1|7")!.series.get("FPU_COUNTER")!;
  assert.deepEqual([wide.req[0], wide.ref[0]], [4_000_000_000, 4_294_967_295]);
});

Deno.test("a buffer far smaller than the log reads the same rows", async () => {
  // Prevents rows cut by the scanner's buffer being lost or read twice.
  await using dir = await tempDir();
  const rows = Array.from(
    { length: 200 },
    (_, i) => counterRow(site(0, 1 + (i % 8), 1, 7 + (i % 3)), `C${i % 5}`, 1000, i, 950 + i),
  );
  const text = logOf(rows);
  const big = (await scanText(dir.path, text)).scan;
  const small = (await scanText(dir.path, text, 97)).scan;
  assert.equal(small.rows, 200);
  assert.deepEqual(
    [...small.ops.values()].map((o) => [...o.series.values()].map((s) => s.req)),
    [...big.ops.values()].map((o) => [...o.series.values()].map((s) => s.req)),
  );
});

Deno.test("quoted meta data, TS_DATA_16B, CRLF and a last line without a break are read", async () => {
  // Prevents a writer's quoting or line endings hiding counter rows.
  await using dir = await tempDir();
  const rows = [
    counterRow(site(0, 1, 1, 7), "FPU_COUNTER", 1000, 723, 950, { quoting: "csv" }),
    counterRow(site(0, 2, 1, 7), "FPU_COUNTER", 1000, 500, 950, { type: "TS_DATA_16B" }),
    counterRow(site(0, 3, 1, 7), "FPU_COUNTER", 1000, 400, 950, { sep: "," }),
    `0,4,1,BRISC,9090,950,0,7,,,,TS_DATA,0,,{'counter type': 'FPU_COUNTER'; 'ref cnt': 1000; ` +
    `'value': 300}`,
    `0,5,1,BRISC,9090,950,0,7,,,,TS_DATA,0,,{"value":200;"ref cnt":1000;"counter type":"FPU_COUNTER"}`,
  ];
  const text = [PREAMBLE, V4, ...rows].join("\r\n");
  const { scan } = await scanText(dir.path, text);
  assert.equal(scan.bad, 0, String(scan.firstBad));
  assert.deepEqual(scan.ops.get("0|7")!.series.get("FPU_COUNTER")!.req, [723, 500, 400, 300, 200]);
});

Deno.test("unreadable counter rows are counted and shown, not fatal", async () => {
  // Prevents one corrupt row failing the whole read, or vanishing without a trace.
  await using dir = await tempDir();
  const rows = [
    counterRow(site(0, 1, 1, 7), "FPU_COUNTER", 1000, 723, 950),
    `0, 1, 1, BRISC, 9090, 950, 0, 7, , , , TS_DATA, 0, , {"counter type":"FPU_COUNTER";"ref cnt":1}`,
    `0, x, 1, BRISC, 9090, 950, 0, 7, , , , TS_DATA, 0, , {"counter type":"A";"ref cnt":1;"value":1}`,
    `0, 1, {"counter type":"FPU_COUNTER";"ref cnt":1;"value":1}`,
  ];
  const { scan } = await scanText(dir.path, logOf(rows));
  assert.equal(scan.rows, 1);
  assert.equal(scan.bad, 3);
  assert.match(scan.firstBad!, /"ref cnt":1}$/);
});

Deno.test("run host ID 0, zone rows, numbered counters and repeats are set apart", async () => {
  // Prevents counters outside any op, a zone named like a counter, an older build's numeric
  // counter type or a repeated row being read as ordinary samples.
  await using dir = await tempDir();
  const rows = [
    counterRow(site(0, 1, 1, 0), "FPU_COUNTER", 1000, 723, 950),
    v4(0, 1, 1, "BRISC", 5, 7, "counter type probe", "ZONE_START"),
    counterRow(site(0, 1, 1, 7), "2", 1000, 10, 950),
    counterRow(site(0, 1, 1, 7), "FPU_COUNTER", 1000, 300, 950),
    counterRow(site(0, 1, 1, 7), "FPU_COUNTER", 1000, 200, 951),
  ];
  const { scan, probe } = await scanText(dir.path, logOf(rows));
  assert.equal(probe.counterRows, 5);
  assert.equal(scan.outsideOps, 1);
  assert.equal(scan.otherTypes, 1);
  assert.equal(scan.numericNames, 1);
  const op = scan.ops.get("0|7")!;
  assert.ok(op.series.has("#2"));
  assert.equal(op.repeats, 1);
  assert.deepEqual(op.series.get("FPU_COUNTER")!.req, [500]);
  assert.deepEqual(op.series.get("FPU_COUNTER")!.ref, [2000]);
});

Deno.test("a log rewritten after the probe is refused as changed", async () => {
  // Prevents answering from a file that is no longer the one load_report looked at.
  await using dir = await tempDir();
  const text = logOf([counterRow(site(0, 1, 1, 7), "FPU_COUNTER", 1000, 723, 950)]);
  const path = `${dir.path}/profile_log_device.csv`;
  await Deno.writeTextFile(path, text);
  const probe = (await probeDeviceLog(path))!;
  await Deno.writeTextFile(path, text + text);
  await assert.rejects(scanCounters(probe), CounterLogChanged);
});

Deno.test("the mark search finds the bytes at any offset and nowhere else", () => {
  // Prevents the skip table jumping over a mark (a missed counter row).
  const enc = new TextEncoder();
  for (let pad = 0; pad < 20; pad++) {
    const buf = enc.encode(`${"counter typ".repeat(2)}${"y".repeat(pad)}counter type!`);
    assert.equal(findMark(buf, 0, buf.length), 22 + pad);
  }
  const none = enc.encode("counter typE counter-type");
  assert.equal(findMark(none, 0, none.length), -1);
});

Deno.test("repeats fold into the first sample of their core and instance, order kept", () => {
  // Prevents a repeated row becoming an extra sample, or folding into another core's.
  const series = {
    name: "FPU_COUNTER",
    req: [1, 2, 3, 4, 5],
    ref: [10, 20, 30, 40, 50],
    core: [7, 8, 7, 7, 8],
    instance: [0, 0, 1, 0, 0],
  };
  assert.equal(mergeRepeats(series), 2);
  assert.deepEqual(series, {
    name: "FPU_COUNTER",
    req: [5, 7, 3],
    ref: [50, 70, 30],
    core: [7, 8, 7],
    instance: [0, 0, 1],
  });
});

Deno.test("the scan refuses a line that is not UTF-8, naming it, and says how far it read", async () => {
  // Prevents perf_counters answering from a log load_report only sampled, past a byte that is
  // not UTF-8; and a long scan telling a client nothing until it answers.
  await using dir = await tempDir();
  const filler = v4(0, 1, 1, "BRISC", 1, 7, "BRISC-FW", "ZONE_START");
  const rows = [
    counterRow(site(0, 1, 1, 7), "FPU_COUNTER", 1000, 723, 950),
    ...Array.from({ length: 5000 }, () => filler),
  ];
  const text = logOf(rows);
  const path = `${dir.path}/profile_log_device.csv`;
  await Deno.writeTextFile(path, text);
  const probe = (await probeDeviceLog(path))!;
  const heard: [number, number | null, string][] = [];
  const scan = await scanCounters(probe, {
    bufferBytes: 1 << 14,
    progress: { report: (d, t, m) => heard.push([d, t, m]) },
  });
  assert.equal(scan.rows, 1);
  assert.ok(heard.length > 2);
  assert.ok(heard.every(([d], i) => i === 0 || d > heard[i - 1][0]), "rising");
  assert.deepEqual(heard[heard.length - 1], [text.length, text.length, COUNTER_PROGRESS_MESSAGE]);
  const bytes = new TextEncoder().encode(text);
  const at = text.length - 40 * filler.length;
  bytes[at] = 0xff;
  await Deno.writeFile(path, bytes);
  const again = (await probeDeviceLog(path, undefined, { head: 1 << 12, tail: 0 }))!;
  assert.equal(again.problem, null, "the bad byte is past the probe's sample");
  const line = text.slice(0, at).split("\n").length;
  await assert.rejects(
    scanCounters(again, { bufferBytes: 1 << 14 }),
    (e: Error) =>
      e instanceof CounterLogNotUtf8 &&
      e.message ===
        `profile_log_device.csv is not UTF-8 text (the first invalid byte is on line ${line})`,
  );
});

Deno.test("an aborted counter scan stops with the abort's reason instead of finishing", async () => {
  // Prevents a cancelled perf_counters call's scan running on to the end of a large log.
  await using dir = await tempDir();
  const filler = v4(0, 1, 1, "BRISC", 1, 7, "BRISC-FW", "ZONE_START");
  const { probe } = await scanText(dir.path, logOf(Array.from({ length: 5000 }, () => filler)));
  const controller = new AbortController();
  let reads = 0;
  const scan = scanCounters(probe, {
    bufferBytes: 1 << 12,
    signal: controller.signal,
    progress: { report: () => ++reads === 2 && controller.abort(new Error("cancelled")) },
  });
  await assert.rejects(scan, /cancelled/);
  assert.equal(reads, 2);
});
