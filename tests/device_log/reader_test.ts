/**
 * The streaming device-log reader: pairing rules, header variants and the odd bytes real and
 * synthetic logs carry. Upstream's pinned behaviours (upstream-perf-tools.md §11.1–11.2) are
 * named after their upstream tests.
 */
import assert from "node:assert/strict";
import { tempDir } from "../_support/dirs.ts";
import { PREAMBLE, readLog, V4, v4, v4Log, zoneOf } from "./_logs.ts";
import { probeDeviceLog } from "../../src/device_log/probe.ts";
import { DeviceLogChanged, readDeviceLog } from "../../src/device_log/read.ts";

Deno.test("starts pair with ends per core, costliest zones carrying the sums (TestZoneSummary)", async () => {
  // Prevents durations summed across cores being paired with the wrong core's start.
  await using dir = await tempDir();
  const s = await readLog(
    dir.path,
    v4Log([
      v4(0, 1, 1, "BRISC", 1000, 1024, "BRISC-KERNEL", "ZONE_START"),
      v4(0, 2, 1, "BRISC", 1050, 1024, "BRISC-KERNEL", "ZONE_START"),
      v4(0, 1, 1, "BRISC", 1400, 1024, "BRISC-KERNEL", "ZONE_END"),
      v4(0, 2, 1, "BRISC", 1150, 1024, "BRISC-KERNEL", "ZONE_END"),
    ]),
  );
  const z = zoneOf(s, "BRISC-KERNEL");
  assert.deepEqual([z.occurrences, z.cores, z.totalCycles], [2, 2, 500]);
  assert.deepEqual(s.pairing, {
    unmatched_starts: 0,
    unmatched_ends: 0,
    ends_before_starts: 0,
    dropped_starts: 0,
  });
});

Deno.test("a pair split across any read-buffer boundary still matches", async () => {
  // Prevents a start at the end of one buffer and its end in the next from going unpaired.
  await using dir = await tempDir();
  const rows: string[] = [];
  for (let i = 0; i < 12; i++) {
    rows.push(v4(0, 1 + (i % 3), 1, "NCRISC", 5000 + i * 100, 1024 + i, "NCRISC-FW", "ZONE_START"));
    rows.push(v4(0, 1 + (i % 3), 1, "NCRISC", 5040 + i * 100, 1024 + i, "NCRISC-FW", "ZONE_END"));
  }
  const text = v4Log(rows);
  const whole = await readLog(dir.path, text);
  assert.equal(zoneOf(whole, "NCRISC-FW", "NCRISC").totalCycles, 480);
  for (const bufferBytes of [70, 71, 97, 150, 233]) {
    const small = await readLog(dir.path, text, { bufferBytes });
    assert.deepEqual(small.zones, whole.zones, `buffer of ${bufferBytes} bytes`);
    assert.deepEqual(small.pairing, whole.pairing);
    assert.equal(small.dataRows, 24);
  }
});

Deno.test("a core is scoped to its device: the same x, y on two PCIe slots are two cores", async () => {
  // Prevents a multi-device capture pooling cores (and pairing a start on one chip with an end on another).
  await using dir = await tempDir();
  const s = await readLog(
    dir.path,
    v4Log([
      v4(0, 1, 1, "BRISC", 100, 7, "BRISC-FW", "ZONE_START"),
      v4(1, 1, 1, "BRISC", 100, 7, "BRISC-FW", "ZONE_START"),
      v4(1, 1, 1, "BRISC", 400, 7, "BRISC-FW", "ZONE_END"),
      v4(0, 1, 1, "BRISC", 300, 7, "BRISC-FW", "ZONE_END"),
    ]),
  );
  const z = zoneOf(s, "BRISC-FW");
  assert.deepEqual([z.cores, z.occurrences, z.totalCycles], [2, 2, 500]);
  assert.equal(s.devices, 2);
});

Deno.test("unpaired starts and ends are counted while the paired ones still total", async () => {
  // Prevents a capture cut mid-zone reading as complete.
  await using dir = await tempDir();
  const s = await readLog(
    dir.path,
    v4Log([
      v4(0, 1, 1, "BRISC", 100, 1, "BRISC-FW", "ZONE_END"),
      v4(0, 1, 1, "BRISC", 200, 1, "BRISC-FW", "ZONE_START"),
      v4(0, 1, 1, "BRISC", 250, 1, "BRISC-FW", "ZONE_END"),
      v4(0, 1, 1, "BRISC", 900, 1, "BRISC-FW", "ZONE_START"),
    ]),
  );
  const z = zoneOf(s, "BRISC-FW");
  assert.deepEqual([z.occurrences, z.totalCycles, z.unmatchedStarts, z.unmatchedEnds], [
    1,
    50,
    1,
    1,
  ]);
  assert.equal(s.pairing!.unmatched_starts, 1);
  assert.equal(s.pairing!.unmatched_ends, 1);
});

Deno.test("nested zones of one name pair innermost first rather than overwriting", async () => {
  // Prevents upstream's overwrite, which loses the outer start and misreports both durations.
  await using dir = await tempDir();
  const s = await readLog(
    dir.path,
    v4Log([
      v4(0, 1, 1, "TRISC_0", 100, 5, "LOOP", "ZONE_START"),
      v4(0, 1, 1, "TRISC_0", 200, 5, "LOOP", "ZONE_START"),
      v4(0, 1, 1, "TRISC_0", 250, 5, "LOOP", "ZONE_END"),
      v4(0, 1, 1, "TRISC_0", 400, 5, "LOOP", "ZONE_END"),
    ]),
  );
  const z = zoneOf(s, "LOOP", "TRISC_0");
  assert.deepEqual([z.occurrences, z.totalCycles, z.unmatchedStarts], [2, 350, 0]);
});

Deno.test("starts pair only with ends of the same run host ID", async () => {
  // Prevents one operation's end closing another operation's zone on the same core.
  await using dir = await tempDir();
  const s = await readLog(
    dir.path,
    v4Log([
      v4(0, 1, 1, "BRISC", 100, 1024, "BRISC-FW", "ZONE_START"),
      v4(0, 1, 1, "BRISC", 150, 2048, "BRISC-FW", "ZONE_START"),
      v4(0, 1, 1, "BRISC", 180, 1024, "BRISC-FW", "ZONE_END"),
    ]),
  );
  const z = zoneOf(s, "BRISC-FW");
  assert.deepEqual([z.occurrences, z.totalCycles, z.unmatchedStarts], [1, 80, 1]);
});

Deno.test("cycle counts past 2^53 give exact durations", async () => {
  // Prevents doubles rounding synthetic timestamps and inventing or losing cycles.
  await using dir = await tempDir();
  const s = await readLog(
    dir.path,
    v4Log([
      v4(0, 1, 1, "BRISC", "9007199254740993", 1, "BRISC-FW", "ZONE_START"),
      v4(0, 1, 1, "BRISC", "9007199254741000", 1, "BRISC-FW", "ZONE_END"),
      // Twenty digits (read apart from the fast path), still below 2^64.
      v4(0, 1, 1, "BRISC", "12345678901234567891", 1, "BRISC-FW", "ZONE_START"),
      v4(0, 1, 1, "BRISC", "12345678901234567901", 1, "BRISC-FW", "ZONE_END"),
    ]),
  );
  assert.equal(zoneOf(s, "BRISC-FW").totalCycles, 17);
});

Deno.test("cycle counts of 2^64 or more are left out as out of range, never summed", async () => {
  // Prevents a count no 64-bit counter can read (a corrupt or forged log) being summed into a
  // zone's total as if it were a time, unflagged.
  await using dir = await tempDir();
  const s = await readLog(
    dir.path,
    v4Log([
      v4(0, 1, 1, "BRISC", "1000", 1, "BRISC-FW", "ZONE_START"),
      v4(0, 1, 1, "BRISC", "18446744073709551616", 1, "BRISC-FW", "ZONE_END"),
      v4(0, 1, 1, "BRISC", "3000", 1, "BRISC-FW", "ZONE_START"),
      v4(0, 1, 1, "BRISC", "3500", 1, "BRISC-FW", "ZONE_END"),
      v4(0, 1, 1, "BRISC", '"99999999999999999999999"', 1, "BRISC-FW", "ZONE_START"),
      v4(0, 1, 1, "BRISC", "18446744073709551000", 1, "BRISC-FW", "ZONE_START"),
      v4(0, 1, 1, "BRISC", "18446744073709551615", 1, "BRISC-FW", "ZONE_END"),
    ]),
  );
  const z = zoneOf(s, "BRISC-FW");
  // 2^64 − 1 is a count; 2^64 (plain) and 10^23 (quoted, the other scanner) are not.
  assert.deepEqual([z.occurrences, z.totalCycles, z.unmatchedStarts], [2, 1115, 1]);
  assert.deepEqual([s.leftOut.count, s.leftOut.outOfRange, s.leftOut.firstLine], [2, 2, 4]);
});

Deno.test("a zone that opened and closed on one cycle totals zero (TestZeroDuration)", async () => {
  // Prevents a zero duration from being treated as missing.
  await using dir = await tempDir();
  const s = await readLog(
    dir.path,
    v4Log([
      v4(0, 1, 1, "BRISC", 77, 1, "MARK", "ZONE_START"),
      v4(0, 1, 1, "BRISC", 77, 1, "MARK", "ZONE_END"),
    ]),
  );
  assert.deepEqual([zoneOf(s, "MARK").occurrences, zoneOf(s, "MARK").totalCycles], [1, 0]);
});

Deno.test("without a type or zone phase column only rows are counted", async () => {
  // Prevents inventing durations from rows that cannot be told apart as starts and ends.
  await using dir = await tempDir();
  const header = "PCIe slot,core_x,core_y,RISC processor type,timer_id,time[cycles since reset]," +
    "data,run host ID,zone name,source line,source file";
  const s = await readLog(
    dir.path,
    [PREAMBLE, header, "0,1,1,BRISC,1,100,0,1,BRISC-FW,1,f", "0,1,1,BRISC,2,300,0,1,BRISC-FW,1,f"]
      .join("\n"),
  );
  const z = zoneOf(s, "BRISC-FW");
  assert.deepEqual([z.occurrences, z.totalCycles], [2, null]);
  assert.equal(s.pairing, null);
  assert.equal(s.boundaryColumn, null);
});

Deno.test("a pre-rename 13-column capture pairs begin with end (TestPreRenameCaptures)", async () => {
  // Prevents the zone phase variant from double counting or going unpaired.
  await using dir = await tempDir();
  const header = "PCIe slot, core_x, core_y, RISC processor type, timer_id, " +
    "time[cycles since reset], stat value, run ID, run host ID,  zone name, zone phase, " +
    "source line, source file";
  const s = await readLog(
    dir.path,
    [
      "ARCH: wormhole_b0, CHIP_FREQ[MHz]: 1000",
      header,
      "0, 1, 1, BRISC, 1, 1000, 0, 3, 1025, BRISC-FW, begin, 433, brisc.cc",
      "0, 1, 1, BRISC, 2, 1700, 0, 3, 1025, BRISC-FW, end, 433, brisc.cc",
    ].join("\n") + "\n",
  );
  const z = zoneOf(s, "BRISC-FW");
  assert.deepEqual([z.occurrences, z.totalCycles, z.unmatchedStarts, z.unmatchedEnds], [
    1,
    700,
    0,
    0,
  ]);
  assert.equal(s.boundaryColumn, "zone phase");
});

Deno.test("columns are found by name in every header variant, extra trailing columns included", async () => {
  // Prevents a positional header (upstream issue #1941) from relabelling columns.
  await using dir = await tempDir();
  const rows = [["1", "100", "ZONE_START"], ["1", "160", "ZONE_END"]];
  const v3 = "PCIe slot,core_x,core_y,RISC processor type,timer_id,time[cycles since reset],data," +
    "run host ID,zone name,type,source line,source file,meta data";
  const v5 = V4 + ", logical_x, logical_y";
  const shuffled = "zone name , type,time[cycles since reset],  run host ID,timer_id," +
    "RISC processor type,core_y,core_x,PCIe slot";
  const cases: [string, (r: string[]) => string][] = [
    [v3, ([run, t, ty]) => `0,2,3,BRISC,1,${t},0,${run},BRISC-FW,${ty},433,brisc.cc,`],
    [v5, ([run, t, ty]) => v4(0, 2, 3, "BRISC", t, run, "BRISC-FW", ty) + ",1,2"],
    [shuffled, ([run, t, ty]) => `BRISC-FW,${ty},${t},${run},1,BRISC,3,2,0`],
  ];
  for (const [header, row] of cases) {
    const s = await readLog(dir.path, [PREAMBLE, header, ...rows.map(row)].join("\n"));
    assert.deepEqual([zoneOf(s, "BRISC-FW").totalCycles, zoneOf(s, "BRISC-FW").cores], [60, 1]);
  }
});

Deno.test("CRLF, a last line without a line break, blank lines and meta data are read", async () => {
  // Prevents a Windows-edited log, a truncated last line or tt-metal's meta data breaking a row.
  await using dir = await tempDir();
  const meta = '{"sub_device_id":1;"workers_runtime_id":7;"note":"a"b"}';
  const text = [
    PREAMBLE,
    V4,
    v4(0, 1, 1, "BRISC", 100, 1, "BRISC-FW", "ZONE_START", meta),
    "",
    "  ",
    v4(0, 1, 1, "BRISC", 130, 1, "BRISC-FW", "ZONE_END", meta),
  ].join("\r\n");
  const s = await readLog(dir.path, text);
  assert.deepEqual([zoneOf(s, "BRISC-FW").totalCycles, s.dataRows, s.leftOut.count], [30, 2, 0]);
});

Deno.test("quoted fields are read whole, commas and doubled quotes inside included", async () => {
  // Prevents a quoted cell with a comma shifting every column after it.
  await using dir = await tempDir();
  const s = await readLog(
    dir.path,
    v4Log([
      `0,1,1,"BRISC",1,"100",0,1,,,"LOOP, inner ""a""",ZONE_START,10,f,"{x,y}"`,
      `0,1,1,BRISC,1,150,0,1,,,"LOOP, inner ""a""",ZONE_END,10,f,`,
    ]),
  );
  const z = zoneOf(s, 'LOOP, inner ""a""');
  assert.deepEqual([z.occurrences, z.totalCycles], [1, 50]);
});

Deno.test("rows whose slot, core or cycle is not a number are left out and counted, not fatal", async () => {
  // Prevents one corrupt row from failing the read, or from being silently dropped.
  await using dir = await tempDir();
  const s = await readLog(
    dir.path,
    v4Log([
      v4(0, 1, 1, "BRISC", 100, 1, "BRISC-KERNEL", "ZONE_START"),
      v4("x", 1, 1, "BRISC", 120, 1, "BRISC-KERNEL", "ZONE_END"),
      v4(0, 1, 1, "BRISC", "1.5e3", 1, "BRISC-KERNEL", "ZONE_END"),
      v4(0, 1, 1, "BRISC", 130, 1, "BRISC-KERNEL", "ZONE_END"),
      "0,1,1,BRISC",
      v4(0, 1, 1, "BRISC", 140, 1, "nan", "ZONE_START"),
    ]),
  );
  assert.equal(zoneOf(s, "BRISC-KERNEL").totalCycles, 30);
  assert.deepEqual(s.leftOut, {
    count: 3,
    kernel: 2,
    short: 1,
    notNumber: 2,
    outOfRange: 0,
    firstLine: 4,
  });
  assert.equal(s.unnamedRows, 1);
});

Deno.test("TS_DATA rows count a zone's cores but are never starts or ends", async () => {
  // Prevents point events from unbalancing the pairing.
  await using dir = await tempDir();
  const s = await readLog(
    dir.path,
    v4Log([
      v4(0, 1, 1, "TRISC_0", 100, 1, "CB-COMPUTE-WAIT-FRONT", "TS_DATA"),
      v4(0, 2, 1, "TRISC_0", 100, 1, "CB-COMPUTE-WAIT-FRONT", "TS_DATA"),
    ]),
  );
  const z = zoneOf(s, "CB-COMPUTE-WAIT-FRONT", "TRISC_0");
  assert.deepEqual([z.occurrences, z.cores, z.totalCycles, z.unmatchedStarts], [0, 2, 0, 0]);
});

Deno.test("an end stamped before its start is left out of the totals and counted", async () => {
  // Prevents a negative duration from shrinking a total.
  await using dir = await tempDir();
  const s = await readLog(
    dir.path,
    v4Log([
      v4(0, 1, 1, "BRISC", 500, 1, "BRISC-FW", "ZONE_START"),
      v4(0, 1, 1, "BRISC", 400, 1, "BRISC-FW", "ZONE_END"),
    ]),
  );
  assert.deepEqual([zoneOf(s, "BRISC-FW").totalCycles, s.pairing!.ends_before_starts], [0, 1]);
});

Deno.test("starts past the open-zone ceiling of one core's RISC are dropped and counted", async () => {
  // Prevents a log of starts without ends from growing memory without bound.
  await using dir = await tempDir();
  const rows = Array.from({ length: 300 }, (_, i) => v4(0, 1, 1, "BRISC", i, 1, "Z", "ZONE_START"));
  const s = await readLog(dir.path, v4Log(rows));
  assert.deepEqual([s.pairing!.dropped_starts, s.pairing!.unmatched_starts], [44, 256]);
});

Deno.test("a line longer than the read buffer is skipped and counted, the rest still read", async () => {
  // Prevents one absurd line from hanging the reader or failing the call.
  await using dir = await tempDir();
  const s = await readLog(
    dir.path,
    v4Log([
      v4(0, 1, 1, "BRISC", 100, 1, "BRISC-FW", "ZONE_START"),
      v4(0, 1, 1, "BRISC", 110, 1, "BRISC-FW", "ZONE_START", "x".repeat(500)),
      v4(0, 1, 1, "BRISC", 130, 1, "BRISC-FW", "ZONE_END"),
    ]),
    { bufferBytes: 256 },
  );
  assert.deepEqual([zoneOf(s, "BRISC-FW").totalCycles, s.leftOut.short, s.dataRows], [30, 1, 3]);
});

Deno.test("a log changed after load_report's look at it is refused, not read", async () => {
  // Prevents answering from a file that is no longer the one the handle was loaded on.
  await using dir = await tempDir();
  const path = `${dir.path}/profile_log_device.csv`;
  await Deno.writeTextFile(path, v4Log([v4(0, 1, 1, "BRISC", 1, 1, "Z", "ZONE_START")]));
  const probe = (await probeDeviceLog(path))!;
  await Deno.writeTextFile(path, v4Log([v4(0, 1, 1, "BRISC", 12, 1, "Z", "ZONE_START")]));
  await assert.rejects(readDeviceLog(probe, null), DeviceLogChanged);
});
