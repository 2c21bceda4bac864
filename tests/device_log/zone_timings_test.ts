/**
 * zone_timings as a tool: its answer's fields, limits, caveats and refusals, and when
 * load_report lists it.
 */
import assert from "node:assert/strict";
import { reasonsByTool } from "../_support/reasons.ts";
import { pastChangeSecond, tempDir, writeFiles } from "../_support/dirs.ts";
import { deviceLogSession } from "./_session.ts";
import { PREAMBLE, V4, v4, v4Log } from "./_logs.ts";

type Row = Record<string, unknown>;

/** A directory holding only a device log. */
async function logDir(dir: string, text: string | Uint8Array): Promise<string> {
  await writeFiles(dir, { "profile_log_device.csv": text });
  return dir;
}

const pairs = (zone: string, risc: string, cycles: number[], run = 1) =>
  cycles.flatMap((c, i) => [
    v4(0, 1 + i, 1, risc, 1000, run, zone, "ZONE_START"),
    v4(0, 1 + i, 1, risc, 1000 + c, run, zone, "ZONE_END"),
  ]);

Deno.test("zone_timings converts with the capture clock and says cycles are occupancy", async () => {
  // Prevents µs at the wrong clock, or a summed occupancy read as elapsed time.
  await using dir = await tempDir();
  const s = deviceLogSession();
  const log = v4Log([...pairs("BRISC-KERNEL", "BRISC", [400, 100]), ...pairs("X", "NCRISC", [7])]);
  const { handle } = await s.load(await logDir(dir.path, log));
  const a = await s.call("zone_timings", { handle });
  assert.equal(a.clock_mhz, 1000);
  assert.equal(a.arch, "wormhole_b0");
  assert.deepEqual((a.zones as Row[])[0], {
    zone: "BRISC-KERNEL",
    risc: "BRISC",
    occurrences: 2,
    cores: 2,
    total_cycles: 500,
    mean_cycles: 250,
    total_us: 0.5,
    unmatched_starts: 0,
    unmatched_ends: 0,
  });
  assert.equal((a.zones as Row[])[1].zone, "X");
  assert.match(String(a.note), /occupancy/);
  assert.equal(a.caveat, undefined);
  assert.equal(a.rest, null);
});

Deno.test("a limit past the cap returns the cap, and what it cut is totalled in rest", async () => {
  // Prevents an unbounded answer, and a cut list whose totals silently shrink.
  await using dir = await tempDir();
  const s = deviceLogSession();
  const rows = Array.from({ length: 120 }, (_, i) => pairs(`Z${i}`, "BRISC", [10 + i])).flat();
  const { handle } = await s.load(await logDir(dir.path, v4Log(rows)));
  const a = await s.call("zone_timings", { handle, limit: 100000 });
  assert.equal(a.zone_count, 120);
  assert.equal(a.returned, 100);
  assert.equal((a.zones as Row[])[0].zone, "Z119");
  assert.match(await s.refusal("zone_timings", { handle, limit: 0 }), /limit/);
  const b = await s.call("zone_timings", { handle, limit: 3 });
  const restCycles = Array.from({ length: 117 }, (_, i) => 10 + i).reduce((x, y) => x + y, 0);
  assert.deepEqual(b.rest, {
    zone_count: 117,
    occurrences: 117,
    total_cycles: restCycles,
    total_us: restCycles / 1000,
  });
});

Deno.test("a capture that stopped mid-zone says how many starts and ends did not pair", async () => {
  // Prevents a partial total from reading as a complete one.
  await using dir = await tempDir();
  const s = deviceLogSession();
  const log = v4Log([
    ...pairs("BRISC-FW", "BRISC", [50]),
    v4(0, 9, 9, "BRISC", 10, 2, "BRISC-FW", "ZONE_START"),
  ]);
  const { handle } = await s.load(await logDir(dir.path, log));
  const a = await s.call("zone_timings", { handle });
  assert.equal((a.pairing as Row).unmatched_starts, 1);
  assert.equal((a.zones as Row[])[0].unmatched_starts, 1);
  assert.match(String(a.caveat), /1 zone starts and 0 ends did not pair.*partial/);
});

Deno.test("without a type column only occurrences are given, and the caveat says why", async () => {
  // Prevents null durations from reading as zero time.
  await using dir = await tempDir();
  const s = deviceLogSession();
  const header = "PCIe slot,core_x,core_y,RISC processor type,timer_id,time[cycles since reset]," +
    "run host ID,zone name";
  const { handle } = await s.load(
    await logDir(
      dir.path,
      [PREAMBLE, header, "0,1,1,BRISC,1,5,1,A", "0,1,1,BRISC,1,9,1,A"].join("\n"),
    ),
  );
  const a = await s.call("zone_timings", { handle });
  const z = (a.zones as Row[])[0];
  assert.deepEqual([z.occurrences, z.total_cycles, z.mean_cycles, z.total_us], [
    2,
    null,
    null,
    null,
  ]);
  assert.equal(a.pairing, undefined);
  assert.match(String(a.caveat), /no type or zone phase column.*occurrences count rows/);
});

Deno.test("a zero or missing CHIP_FREQ keeps cycles and nulls µs, naming why", async () => {
  // Prevents a division by a zero clock, and a null µs with no reason given (issue 12 item 7).
  await using dir = await tempDir();
  const s = deviceLogSession();
  for (
    const [preamble, why] of [
      ["ARCH: quasar, CHIP_FREQ[MHz]: 0, Max Compute Cores: 32", /CHIP_FREQ\[MHz\] as "0"/],
      ["ARCH: grayskull", /names no CHIP_FREQ\[MHz\]/],
      ["Chip clock is at 1.2 GHz", /names no CHIP_FREQ\[MHz\]/],
    ] as const
  ) {
    await Deno.writeTextFile(
      `${dir.path}/profile_log_device.csv`,
      v4Log(pairs("BRISC-FW", "BRISC", [300]), preamble),
    );
    const { handle } = await s.load(dir.path);
    const a = await s.call("zone_timings", { handle });
    const z = (a.zones as Row[])[0];
    assert.deepEqual([a.clock_mhz, z.total_cycles, z.occurrences, z.total_us], [
      null,
      300,
      1,
      null,
    ]);
    assert.match(String(a.caveat), why);
    assert.match(String(a.caveat), /total_us is null; cycles and occurrences are complete/);
  }
});

Deno.test("left-out rows are counted in the caveat with the first one's line", async () => {
  // Prevents a corrupt row from silently shrinking the totals.
  await using dir = await tempDir();
  const s = deviceLogSession();
  const log = v4Log([...pairs("A", "BRISC", [5]), v4(0, "?", 1, "BRISC", 3, 1, "A", "ZONE_END")]);
  const { handle } = await s.load(await logDir(dir.path, log));
  const a = await s.call("zone_timings", { handle });
  assert.match(String(a.caveat), /1 rows were left out \(first at line 5\): 1 whose PCIe slot/);
});

Deno.test("a cycle count of 2^64 or more is left out and named out of range in the caveat", async () => {
  // Prevents a count no 64-bit counter can hold being summed into the zone's cycles unflagged.
  await using dir = await tempDir();
  const s = deviceLogSession();
  const log = v4Log([
    ...pairs("A", "BRISC", [5]),
    v4(0, 1, 1, "BRISC", 100, 1, "A", "ZONE_START"),
    v4(0, 1, 1, "BRISC", "18446744073709551616", 1, "A", "ZONE_END"),
  ]);
  const { handle } = await s.load(await logDir(dir.path, log));
  const a = await s.call("zone_timings", { handle });
  assert.equal((a.zones as { total_cycles: number }[])[0].total_cycles, 5);
  assert.match(
    String(a.caveat),
    /1 rows were left out \(first at line 6\): 1 whose cycle count is 2\^64 or more, out of any 64-bit counter's range/,
  );
});

Deno.test("load_report lists zone_timings only for a readable log with its columns and a row", async () => {
  // Prevents advertising zone_timings for a log it would refuse, and a refusal that does not say why.
  await using dir = await tempDir();
  const s = deviceLogSession();
  const noCoreY = V4.replace("core_y", "core_yy");
  const cases: [string, string | Uint8Array | null, RegExp | null][] = [
    ["ok", v4Log(pairs("A", "BRISC", [1])), null],
    ["none", null, /no profile_log_device\.csv in/],
    [
      "columns",
      [PREAMBLE, noCoreY, "0,1,1,BRISC,1,5,0,1,,,A,ZONE_START"].join("\n"),
      /missing columns: core_y/,
    ],
    ["empty", [PREAMBLE, V4].join("\n") + "\n", /has no data rows/],
    ["bytes", new Uint8Array([65, 10, 0xff, 0xfe, 10]), /not UTF-8/],
  ];
  for (const [name, text, why] of cases) {
    await Deno.mkdir(`${dir.path}/${name}`);
    if (text !== null) await logDir(`${dir.path}/${name}`, text);
    const a = await s.load(`${dir.path}/${name}`);
    if (why === null) {
      assert.ok((a.answerable as string[]).includes("zone_timings"), name);
      continue;
    }
    assert.ok((a.unanswerable as string[]).includes("zone_timings"), name);
    assert.match(String(reasonsByTool(a).zone_timings), why, name);
    assert.match(await s.refusal("zone_timings", { handle: a.handle }), why, name);
  }
});

Deno.test("a handle without a performance_path is refused by zone_timings", async () => {
  // Prevents a profiler-only handle from answering with an empty zone list.
  const s = deviceLogSession();
  const { handle } = await s.call("load_report", {
    profiler_path: new URL("../../fixtures/demo/profiler", import.meta.url).pathname,
  });
  assert.match(await s.refusal("zone_timings", { handle }), /without a performance_path/);
});

Deno.test("later calls answer from the first read, and a rewritten log is refused", async () => {
  // Prevents re-reading a large log per call, and answering from a file that changed — even
  // in place, at the same size, with its modification time put back.
  await using dir = await tempDir();
  const s = deviceLogSession();
  const path = `${dir.path}/profile_log_device.csv`;
  await Deno.writeTextFile(path, v4Log(pairs("A", "BRISC", [100])));
  const { handle } = await s.load(dir.path);
  const first = await s.call("zone_timings", { handle });
  const report = await s.registry.get(String(handle));
  const kept = [...report.cache.values()];
  const second = await s.call("zone_timings", { handle });
  assert.deepEqual(second.zones, first.zones);
  assert.deepEqual([...report.cache.values()], kept, "the second call made no read of its own");
  await pastChangeSecond(path);
  const { mtime } = await Deno.stat(path);
  await Deno.writeTextFile(path, v4Log(pairs("A", "BRISC", [900])));
  await Deno.utime(path, mtime!, mtime!);
  assert.match(await s.refusal("zone_timings", { handle }), /stale.*rewritten.*load_report again/);
});
