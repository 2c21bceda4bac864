/**
 * Writes `fixtures/perf/*.csv`: small synthetic ops_perf_results CSVs, each built to exercise
 * one rule of the tt-perf-report port (signposts, host ops, device merging, blanks and NaNs,
 * older formats, ties, an empty report). Deterministic: the same bytes on every run.
 *
 *   deno run --allow-write=fixtures/perf scripts/make_perf_fixtures.ts
 *
 * The perf_report tests check that the committed files equal what this script builds.
 * @module
 */

/** One CSV row: column name → cell text (absent columns are blank). */
type Row = Record<string, string | number>;

const SHAPE = (prefix: string, suffix: string) =>
  ["W", "Z", "Y", "X"].map((d) => `${prefix}_${d}${suffix}`);

/** The columns of a v2.1 capture the port reads (plus a few it ignores). */
export const V21_COLUMNS = [
  "OP CODE",
  "OP TYPE",
  "GLOBAL CALL COUNT",
  "DEVICE ID",
  "DEVICE ARCH",
  "ATTRIBUTES",
  "MATH FIDELITY",
  "CORE COUNT",
  "AVAILABLE WORKER CORE COUNT",
  "HOST START TS",
  "OP TO OP LATENCY [ns]",
  "DEVICE KERNEL DURATION [ns]",
  "DEVICE FW START CYCLE",
  "DEVICE FW END CYCLE",
  "DEVICE FW DURATION [ns]",
  ...SHAPE("INPUT_0", "_PAD[LOGICAL]"),
  "INPUT_0_LAYOUT",
  "INPUT_0_DATATYPE",
  "INPUT_0_MEMORY",
  ...SHAPE("INPUT_1", "_PAD[LOGICAL]"),
  "INPUT_1_LAYOUT",
  "INPUT_1_DATATYPE",
  "INPUT_1_MEMORY",
  ...SHAPE("OUTPUT_0", "_PAD[LOGICAL]"),
  "OUTPUT_0_LAYOUT",
  "OUTPUT_0_DATATYPE",
  "OUTPUT_0_MEMORY",
];

/** The columns of a v1 capture (plain shape columns, no arch columns). */
export const V1_COLUMNS = V21_COLUMNS
  .filter((c) => c !== "DEVICE ARCH" && c !== "AVAILABLE WORKER CORE COUNT")
  .map((c) => c.replace("_PAD[LOGICAL]", ""));

function csvCell(value: string | number | undefined): string {
  const text = value === undefined ? "" : String(value);
  return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

function csv(columns: readonly string[], rows: Row[]): string {
  const lines = [columns.join(",")];
  for (const row of rows) lines.push(columns.map((c) => csvCell(row[c])).join(","));
  return lines.join("\n") + "\n";
}

let ts = 1_000_000;

/** A device op with defaults: one BF16 tensor in, one out, 1 µs, 10 ns gap, 64 cores. */
function op(code: string, extra: Row = {}): Row {
  ts += 1000;
  return {
    "OP CODE": code,
    "OP TYPE": "tt_dnn_device",
    "GLOBAL CALL COUNT": 1024,
    "DEVICE ID": 0,
    "DEVICE ARCH": "wormhole_b0",
    "ATTRIBUTES": "{}",
    "CORE COUNT": 64,
    "AVAILABLE WORKER CORE COUNT": 64,
    "HOST START TS": ts,
    "OP TO OP LATENCY [ns]": 10_000,
    "DEVICE KERNEL DURATION [ns]": 1000,
    "INPUT_0_DATATYPE": "BFLOAT16",
    "INPUT_0_MEMORY": "DEV_0_L1_INTERLEAVED",
    "OUTPUT_0_DATATYPE": "BFLOAT16",
    "OUTPUT_0_MEMORY": "DEV_0_L1_INTERLEAVED",
    ...extra,
  };
}

function signpost(name: string): Row {
  ts += 1000;
  return { "OP CODE": name, "OP TYPE": "signpost", "HOST START TS": ts };
}

/** A 1×1×M×K @ 1×1×K×N BF16 matmul reading input 1 from DRAM. */
function matmul(m: number, k: number, n: number, extra: Row = {}): Row {
  const shape = (prefix: string, y: number, x: number, v1: boolean): Row => {
    const suffix = v1 ? "" : "_PAD[LOGICAL]";
    const cell = (v: number) => (v1 ? v : `${v}[${v}]`);
    return {
      [`${prefix}_W${suffix}`]: cell(1),
      [`${prefix}_Z${suffix}`]: cell(1),
      [`${prefix}_Y${suffix}`]: cell(y),
      [`${prefix}_X${suffix}`]: cell(x),
    };
  };
  const v1 = extra.v1 === 1;
  const { v1: _drop, ...rest } = extra;
  return op("MatmulDeviceOperation", {
    "MATH FIDELITY": "HiFi2",
    ...shape("INPUT_0", m, k, v1),
    ...shape("INPUT_1", k, n, v1),
    ...shape("OUTPUT_0", m, n, v1),
    "INPUT_1_DATATYPE": "BFLOAT8_B",
    "INPUT_1_MEMORY": "DEV_0_DRAM_INTERLEAVED",
    "ATTRIBUTES":
      "{'program_config': 'MatmulMultiCoreReuseMultiCastProgramConfig(in0_block_w=2;out_subblock_h=1;out_subblock_w=4)'}",
    ...rest,
  });
}

/** Every fixture: file name → CSV text. */
export function buildFixtures(): Record<string, string> {
  ts = 1_000_000;
  const files: Record<string, string> = {};

  // Signposts around ops: "start" twice, "mid", "end", then two adjacent ones (an empty window).
  files["signposts.csv"] = csv(V21_COLUMNS, [
    signpost("start"),
    op("TransposeDeviceOperation", { "OP TO OP LATENCY [ns]": 900_000 }),
    matmul(64, 128, 256, { "DEVICE KERNEL DURATION [ns]": 2000 }),
    signpost("mid"),
    op("SoftmaxDeviceOperation", { "DEVICE KERNEL DURATION [ns]": 3000 }),
    signpost("start"),
    op("LayerNormDeviceOperation"),
    signpost("end"),
    op("UnaryDeviceOperation"),
    signpost("gap_a"),
    signpost("gap_b"),
  ]);

  // Host fallback ops among device ops, v1 format.
  files["host_ops_v1.csv"] = csv(V1_COLUMNS, [
    op("(torch) __getitem__", { "OP TYPE": "python_fallback", "DEVICE ID": "", "CORE COUNT": "" }),
    op("(torch) ones", {
      "OP TYPE": "python_fallback",
      "DEVICE ID": "",
      "CORE COUNT": "",
      "DEVICE KERNEL DURATION [ns]": "",
      "OP TO OP LATENCY [ns]": "",
    }),
    op("Tilize", { "OP TO OP LATENCY [ns]": 0 }),
    matmul(32, 32, 32, { v1: 1, "DEVICE KERNEL DURATION [ns]": 4000 }),
  ]);

  // Two devices: a matmul (slowest device wins, ties to the lower id) and an all-gather
  // (mean of the devices, device 0's row kept).
  const two = (code: string, d0: number, d1: number, extra: Row = {}): Row[] => [
    op(code, { "DEVICE ID": 0, "DEVICE KERNEL DURATION [ns]": d0, ...extra }),
    op(code, { "DEVICE ID": 1, "DEVICE KERNEL DURATION [ns]": d1, ...extra }),
  ];
  files["two_devices.csv"] = csv(V21_COLUMNS, [
    ...two("SoftmaxDeviceOperation", 1000, 3000),
    ...two("AllGatherAsyncDeviceOperation", 1000, 2000, { "OP TO OP LATENCY [ns]": 7000 }),
    ...two("LayerNormDeviceOperation", 5000, 5000),
    op("UntilizeDeviceOperation", { "DEVICE ID": 1, "DEVICE KERNEL DURATION [ns]": 100 }),
  ]);

  // Cells pandas reads as missing or that are not usable numbers.
  files["blanks_and_nans.csv"] = csv(V21_COLUMNS, [
    op("TransposeDeviceOperation"),
    op("SoftmaxDeviceOperation", { "DEVICE KERNEL DURATION [ns]": "" }),
    op("ReshapeDeviceOperation", { "DEVICE KERNEL DURATION [ns]": "NaN", "CORE COUNT": "n/a" }),
    op("SliceDeviceOperation", { "DEVICE KERNEL DURATION [ns]": "abc", "GLOBAL CALL COUNT": "NA" }),
    op("PermuteDeviceOperation", { "DEVICE KERNEL DURATION [ns]": "-5" }),
    op("ConcatDeviceOperation", {
      "DEVICE KERNEL DURATION [ns]": 6_920_000_000,
      "OP TO OP LATENCY [ns]": -6_920_000_000,
    }),
    op("TypecastDeviceOperation", { "OP TO OP LATENCY [ns]": 2_000_000, "CORE COUNT": "12.5" }),
    op("CopyDeviceOperation", { "OP TO OP LATENCY [ns]": "", "DEVICE ID": "x" }),
  ]);

  // A header and no data rows.
  files["header_only.csv"] = csv(V21_COLUMNS, []);

  // An older v1 capture lacking the input-1 and output columns and MATH FIDELITY.
  const old = V1_COLUMNS.filter((c) =>
    !c.startsWith("INPUT_1_") && !c.startsWith("OUTPUT_0_") && c !== "MATH FIDELITY"
  );
  files["old_format_missing_columns.csv"] = csv(old, [
    op("TransposeDeviceOperation"),
    op("MatmulDeviceOperation"),
  ]);

  // A matmul whose MATH FIDELITY is blank: tt-perf-report aborts on it.
  files["blank_fidelity_matmul.csv"] = csv(V21_COLUMNS, [
    matmul(32, 64, 32, { "MATH FIDELITY": "" }),
  ]);

  // Rows whose HOST START TS is out of file order, with a tie, and no device ids (so no
  // merge restores file order).
  files["unsorted_ties.csv"] = csv(V21_COLUMNS, [
    op("TilizeDeviceOperation", { "HOST START TS": 300, "DEVICE ID": "" }),
    op("SoftmaxDeviceOperation", { "HOST START TS": 100, "DEVICE ID": "" }),
    op("ReshapeDeviceOperation", { "HOST START TS": 200, "DEVICE ID": "" }),
    op("UnaryDeviceOperation", { "HOST START TS": 100, "DEVICE ID": "" }),
  ]);

  // 25 distinct signpost names, one of them longer than 256 characters.
  const many: Row[] = [];
  for (let i = 0; i < 24; i++) {
    many.push(signpost(`phase_${String(i).padStart(2, "0")}`), op("Tilize"));
  }
  many.push(signpost("x".repeat(300)), op("Tilize"));
  files["many_signposts.csv"] = csv(V21_COLUMNS, many);

  // Sub-device ids in a float column (1.50 is read as 1.5) and varying core budgets.
  files["sub_devices.csv"] = csv([...V21_COLUMNS, "SUB DEVICE ID"], [
    op("TransposeDeviceOperation", { "SUB DEVICE ID": "1.50", "AVAILABLE WORKER CORE COUNT": 12 }),
    op("SoftmaxDeviceOperation", { "SUB DEVICE ID": "2", "AVAILABLE WORKER CORE COUNT": 108 }),
    op("UnaryDeviceOperation", { "SUB DEVICE ID": "" }),
  ]);
  return files;
}

if (import.meta.main) {
  const dir = new URL("../fixtures/perf/", import.meta.url);
  Deno.mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(buildFixtures())) {
    Deno.writeTextFileSync(new URL(name, dir), text);
  }
}
