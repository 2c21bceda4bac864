import assert from "node:assert/strict";
import {
  CsvFormatError,
  CsvReader,
  parseCsvTable,
  type ParsedCsv,
  rowClasses,
} from "../../src/perf_report/csv_table.ts";
import { random } from "../../scripts/_random.ts";
import { generatePerfReport } from "../../src/perf_report/report.ts";
import { missingColumns } from "../../src/perf_report/columns.ts";
import { fixture } from "./_fixtures.ts";

Deno.test("a BOM and CRLF line ends are read as pandas reads them", () => {
  // Prevents a Windows-written CSV from getting a '\ufeffOP CODE' column or '\r' in cells.
  const t = parseCsvTable("\ufeffOP CODE,OP TYPE\r\nA,b\r\n", "x.csv");
  assert.deepEqual({ header: t.header, rows: t.rows }, {
    header: ["OP CODE", "OP TYPE"],
    rows: [["A", "b"]],
  });
});

Deno.test("a file mixing CRLF and LF line ends is still one record per line", () => {
  // Prevents two records fusing into one (and a wrong field count) after a copy-paste edit.
  const t = parseCsvTable("A,B\r\n1,2\n3,4\r\n", "x.csv");
  assert.deepEqual(t.rows, [["1", "2"], ["3", "4"]]);
});

Deno.test("a bare quote inside an unquoted field is kept as text", () => {
  // Prevents real tt-metal ATTRIBUTES cells with stray quotes from failing to parse.
  const t = parseCsvTable('A,B\nx"y,{\'k\': "v"}\n', "x.csv");
  assert.deepEqual(t.rows, [['x"y', "{'k': \"v\"}"]]);
});

Deno.test("quoted fields keep commas and doubled quotes", () => {
  // Prevents ATTRIBUTES with commas from spilling into the next columns.
  const t = parseCsvTable('A,B\n"a,b ""c""",2\n', "x.csv");
  assert.deepEqual(t.rows, [['a,b "c"', "2"]]);
});

Deno.test("a record shorter than the header is padded with blank cells", () => {
  // Prevents an undefined cell from reaching the report as a TypeError.
  assert.deepEqual(parseCsvTable("A,B,C\n1\n", "x.csv").rows, [["1", "", ""]]);
});

Deno.test("a record wider than the header is a CsvFormatError naming the file and line", () => {
  // Prevents a shifted row from being silently read into the wrong columns.
  assert.throws(
    () => parseCsvTable("A,B\n1,2\n1,2,3\n", "ops_perf_results_x.csv"),
    (e: unknown) =>
      e instanceof CsvFormatError && e.line === 3 &&
      e.message.startsWith("ops_perf_results_x.csv: line 3:"),
  );
});

Deno.test("an unterminated quote is a CsvFormatError naming the file and line", () => {
  // Prevents a truncated capture from being reported as if complete.
  assert.throws(
    () => parseCsvTable('A,B\n1,2\n"3,4\n', "cut.csv"),
    (e: unknown) => e instanceof CsvFormatError && /^cut\.csv: line \d+:/.test(e.message),
  );
});

Deno.test("a short last record with no line break is refused as truncated, not padded", () => {
  // Prevents a copy cut off mid-row from being reported with that row's times read as blank.
  assert.throws(
    () => parseCsvTable("A,B,C\n1,2,3\n4,5", "cut.csv"),
    (e: unknown) =>
      e instanceof CsvFormatError && e.line === 3 &&
      e.message ===
        "cut.csv: line 3: the file ends inside this line, after 2 of the header's 3 fields " +
          "and with no line break (the file may be truncated)",
  );
  // A short record that a line break ends is a row with blank cells (as pandas reads it), and
  // a complete last record needs no line break.
  assert.equal(parseCsvTable("A,B,C\n1,2,3\n4,5\n", "x.csv").rows[1][2], "");
  assert.equal(parseCsvTable("A,B,C\n1,2,3\n4,5,6", "x.csv").rows[1][2], "6");
  assert.equal(parseCsvTable("A,B,C\r\n4,5\r\n", "x.csv").rows[0][2], "");
});

Deno.test("an empty text is a CsvFormatError, not an empty table", () => {
  // Prevents a zero-byte file from looking like a CSV without columns.
  assert.throws(() => parseCsvTable("", "empty.csv"), CsvFormatError);
});

Deno.test("blank lines are skipped and do not count toward row ids", () => {
  // Prevents ids drifting from tt-perf-report's (pandas skips blank lines when numbering).
  const text = new TextDecoder().decode(
    Deno.readFileSync(new URL("../../fixtures/perf/unsorted_ties.csv", import.meta.url)),
  );
  const [header, first, ...rest] = text.trimEnd().split("\n");
  const withBlank = [header, first, "", ...rest].join("\n") + "\n";
  const ids = generatePerfReport(parseCsvTable(withBlank, "x.csv")).rows.map((r) => r.id).sort();
  assert.deepEqual(ids, [2, 3, 4, 5]);
});

Deno.test("missing columns of an older format are listed, shape columns named for it", () => {
  // Prevents load_report from advertising top_ops on a CSV tt-perf-report cannot analyse.
  const t = fixture("old_format_missing_columns.csv");
  const missing = missingColumns(t.header);
  assert.ok(missing.includes("MATH FIDELITY"));
  assert.ok(missing.includes("INPUT_1_MEMORY"));
  assert.ok(missing.includes("OUTPUT_0_Y"), "v1 shape columns have no _PAD[LOGICAL] suffix");
  assert.ok(!missing.includes("INPUT_0_X"));
  assert.deepEqual(missingColumns(fixture("signposts.csv").header), []);
});

Deno.test("a quoted field may span lines, and later errors still name the right line", () => {
  // Prevents a newline inside ATTRIBUTES from shifting the line an error reports.
  const t = parseCsvTable('A,B\n"x\ny",1\n2,3\n', "x.csv");
  assert.deepEqual(t.rows, [["x\ny", "1"], ["2", "3"]]);
  assert.throws(
    () => parseCsvTable('A,B\n"x\ny",1\n2,3,4\n', "x.csv"),
    (e: unknown) => e instanceof CsvFormatError && e.line === 4,
  );
});

Deno.test("text after a closing quote joins the field, as pandas reads it", () => {
  // Prevents a malformed quoted cell from splitting into extra columns.
  assert.deepEqual(parseCsvTable('A,B\n"ab"cd,2\n', "x.csv").rows, [["abcd", "2"]]);
});

Deno.test("a trailing comma is an empty last field and a last line without newline is read", () => {
  // Prevents losing the last cell or the last row of a CSV written without a final newline.
  assert.deepEqual(parseCsvTable("A,B\n1,\n3,4", "x.csv").rows, [["1", ""], ["3", "4"]]);
});

Deno.test("CRLF, LF and lone-CR files read the same, quoted line breaks and trailing commas included", () => {
  // Prevents \r\n read in place (without copying the text) leaving a \r in a cell or a line.
  const lf = 'OP CODE,ATTRIBUTES,X\nMatmul,"{a,\nb}",1\n\nSoftmax,,\nLast,"q""uote",3';
  const expected = parseCsvTable(lf, "lf.csv");
  assert.deepEqual(expected.rows, [
    ["Matmul", "{a,\nb}", "1"],
    ["Softmax", "", ""],
    ["Last", 'q"uote', "3"],
  ]);
  for (
    const [name, text] of [
      ["crlf", lf.replaceAll("\n", "\r\n")],
      ["crlf with a final break", lf.replaceAll("\n", "\r\n") + "\r\n"],
      ["lone cr", lf.replaceAll("\n", "\r")],
      ["mixed", lf.replace("\n", "\r\n").replace("\n\n", "\r\r")],
    ]
  ) {
    const t = parseCsvTable(text, `${name}.csv`);
    assert.deepEqual([t.header, t.rows], [expected.header, expected.rows], name);
  }
  // A record too wide is still named by its line when lines end in \r\n.
  assert.throws(
    () => parseCsvTable("A,B\r\n1,2\r\n3,4,5\r\n", "x.csv"),
    /line 3/,
  );
});

Deno.test("a blank line before the header is skipped, as pandas skips it", () => {
  // Prevents a leading blank line from adding an empty first column and shifting every row.
  const t = parseCsvTable("\n\r\nA,B\n1,2\n", "x.csv");
  assert.deepEqual([t.header, t.rows], [["A", "B"], [["1", "2"]]]);
});

/** Texts that exercise every path of the scanner, each as pandas reads it whole. */
const TRICKY = [
  'OP CODE,ATTRIBUTES,X\nMatmul,"{a,\nb}",1\n\nSoftmax,,\nLast,"q""uote",3\n',
  'A,B\r\n"x\r\ny",1\r\n2,3\r\n"",\r\n"a""b"c,007\r\n',
  "A,B\r1,2\r\r3,-0\r",
  "\ufeffA,B,C\n1,2\n-5,123456789012345,1234567890123456\n0,\ufeff1,é\n",
  'A,B\n1,"never closed\n2,3\n',
  "A,B\n1,2\n3,4,5\n6,7\n",
  "A,B,C\n1,2,3\n4,5",
  '\n\nA,"B\nC"\n1,2\n',
];

/** `text` cut into pieces at random line breaks (a `\r\n` never split), fed one by one. */
function readInPieces(text: string, label: string, next: () => number) {
  const reader = new CsvReader(label, text.length);
  let from = 0;
  for (let k = 0; k < text.length; k++) {
    const c = text[k];
    const breaks = c === "\n" || (c === "\r" && text[k + 1] !== "\n");
    if (breaks && next() < 0.5) {
      reader.push(text.slice(from, k + 1));
      from = k + 1;
    }
  }
  reader.push(text.slice(from), true);
  return reader.finish();
}

Deno.test("a text read in pieces is the same table, or the same error, however it is cut", () => {
  // Prevents a record, a quoted line break or an error line changing where a read piece ends.
  const next = random(20261203);
  const outcome = (read: () => ParsedCsv) => {
    try {
      const t = read();
      return { header: t.header, rows: t.rows };
    } catch (e) {
      return { error: (e as Error).message };
    }
  };
  for (const text of TRICKY) {
    const whole = outcome(() => parseCsvTable(text, "x.csv"));
    for (let round = 0; round < 40; round++) {
      assert.deepEqual(outcome(() => readInPieces(text, "x.csv", next)), whole, text);
    }
  }
});

Deno.test("each distinct text of a column is held once, and plain integers as numbers", () => {
  // Prevents a large CSV's repeated long cells (ATTRIBUTES, kernel sources) being held once a
  // row, which is what kept a 110 MB file's table at 4× its size.
  const attributes = `{'program_config': '${"x".repeat(300)}'}`;
  const lines = ["OP CODE,ATTRIBUTES,N"];
  for (let r = 0; r < 1000; r++) lines.push(`Op${r % 3},${attributes}${r % 2},${r * 1000}`);
  const t = parseCsvTable(lines.join("\n") + "\n", "x.csv");
  assert.equal(t.column(0).entries.length, 2 + 3);
  assert.equal(t.column(1).entries.length, 2 + 2);
  assert.equal(t.column(2).entries.length, 2, "no text kept for a number column");
  assert.equal(t.cell(999, 2), "999000");
  assert.equal(t.cell(998, 1), `${attributes}0`);
});

Deno.test("rows are put in one class only when their cells are the same, even where hashes meet", () => {
  // Prevents rows whose cells differ but hash alike (0,29791 and 1,0 do: the hash is
  // 31·(31·(29791·(31+a)+1)+b)) sharing what is derived once a class.
  const t = parseCsvTable("A,B,C\n0,29791,x\n1,0,y\n0,29791,z\n1,0,x\nq,r,s\n", "t.csv");
  const c = rowClasses(t, [0, 1]);
  assert.deepEqual([...c.of], [0, 1, 0, 1, 2]);
  assert.equal(c.count, 3);
  // Over every column, every row differs from every other.
  assert.equal(rowClasses(t, [0, 1, 2]).count, 5);
  // No column: one class.
  assert.deepEqual([...rowClasses(t, []).of], [0, 0, 0, 0, 0]);
});
