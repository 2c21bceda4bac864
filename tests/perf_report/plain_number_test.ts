/**
 * The frame's fast path for plain decimal cells must conclude exactly what the general path
 * (pandas' NA tokens, number grammar and int64 range) concludes, cell for cell.
 */
import assert from "node:assert/strict";
import { Frame, inferDtype, plainNumber } from "../../src/perf_report/_frame.ts";
import { parseCsvTable } from "../../src/perf_report/csv_table.ts";
import { RowReader } from "../../src/perf_report/_source.ts";
import { getValuePhysicalLogical } from "../../src/perf_report/cells.ts";
import {
  isNaToken,
  isPandasInt,
  parsePandasNumber,
  parsePythonFloat,
  pyFirstToken,
  pySplitWhitespace,
} from "../../src/perf_report/_python.ts";
import { random } from "../../scripts/_random.ts";

const FIXED = [
  "0",
  "-0",
  "007",
  "1024",
  "-17",
  "1.",
  "1.5",
  "-2.50",
  "123456789012345",
  "1234567890123456",
  "9007199254740993",
  ".5",
  "+1",
  "1e3",
  "1E-3",
  " 1",
  "1 ",
  "nan",
  "NaN",
  "-nan",
  "-1.#IND",
  "1.#QNAN",
  "inf",
  "-inf",
  "Infinity",
  "True",
  "false",
  "",
  "-",
  ".",
  "1.2.3",
  "0x10",
  "1_000",
  "12a",
  "٣",
  "１２",
];

Deno.test("a plain decimal cell is read as the general path reads it, and nothing else is plain", () => {
  // Prevents the fast path changing a dtype or a value tt-perf-report's numbers depend on.
  const rnd = random(20261129);
  const alphabet = "0123456789-.+eE naINf#_ ";
  const cells = [...FIXED];
  for (let i = 0; i < 20000; i++) {
    let cell = "";
    const length = 1 + Math.floor(rnd() * 18);
    for (let k = 0; k < length; k++) cell += alphabet[Math.floor(rnd() * alphabet.length)];
    cells.push(cell);
  }
  let plain = 0;
  for (const cell of cells) {
    const kind = plainNumber(cell);
    if (kind === 0) {
      // Not plain: only cells the general path might read otherwise; nothing to check here
      // but that every plain-looking cell of the list above was taken.
      assert.ok(!/^-?\d{1,15}(\.\d*)?$/.test(cell), `${JSON.stringify(cell)} is plain`);
      continue;
    }
    plain++;
    assert.equal(isNaToken(cell), false, cell);
    assert.ok(Object.is(parsePandasNumber(cell), Number(cell)), cell);
    assert.equal(isPandasInt(cell), kind === 1, cell);
  }
  assert.ok(plain > 500, `${plain} plain cells tried`);
});

Deno.test("a plain integer column holds the values Number reads, -0 and leading zeros included", () => {
  // Prevents the digit loop that replaces Number() drifting from it on any plain integer.
  const rows = ["0", "-0", "007", "123456789012345", "-999999999999999", "42"].map((c) => [c]);
  const frame = Frame.of({ header: ["A"], rows });
  rows.forEach(([cell], r) => assert.ok(Object.is(frame.value(r, "A"), Number(cell)), cell));
  assert.equal(frame.dtype("A"), "int");
});

Deno.test("cells read in place in the CSV text read as the same cells given as strings", () => {
  // Prevents the in-place reading of a parsed CSV (offsets, no string per cell) drifting from
  // the cell-by-cell reading: dtypes, values, str() forms and coerced numbers, column by column.
  const rnd = random(20261130);
  const alphabet = "0123456789-.+eE naINf#_ ";
  const columns = [
    [...FIXED],
    ...Array.from({ length: 6 }, (_, k) =>
      Array.from({ length: FIXED.length }, () => {
        // Mostly plain numbers of one kind per column, with some other cells mixed in.
        if (rnd() < 0.8) {
          const digits = String(Math.floor(rnd() * 10 ** (1 + k * 2)));
          return k % 2 === 0 ? digits : `${rnd() < 0.5 ? "-" : ""}${digits}.${k}`;
        }
        let cell = "";
        for (let i = 0; i < 1 + Math.floor(rnd() * 6); i++) {
          cell += alphabet[Math.floor(rnd() * alphabet.length)];
        }
        return cell;
      })),
    ["True", "false", "", "TRUE", ...Array(FIXED.length - 4).fill("true")],
  ];
  const header = columns.map((_, c) => `C${c}`);
  const records = FIXED.map((_, r) => columns.map((col) => col[r]));
  const quote = (cell: string) => /[",\r\n]/.test(cell) || rnd() < 0.1 ? `"${cell}"` : cell;
  const text = [header, ...records].map((cells) => cells.map(quote).join(",")).join("\n") + "\n";
  const parsed = parseCsvTable(text, "t.csv");
  const inPlace = Frame.of(parsed);
  const given = Frame.of({ header, rows: records.map((r) => [...r]) });
  assert.equal(inPlace.length, records.length);
  for (const column of header) {
    assert.equal(inPlace.dtype(column), given.dtype(column), column);
    for (let r = 0; r < records.length; r++) {
      const at = `${column} row ${r} ${JSON.stringify(records[r][header.indexOf(column)])}`;
      assert.ok(Object.is(inPlace.value(r, column), given.value(r, column)), at);
      assert.ok(Object.is(inPlace.numeric(r, column), given.numeric(r, column)), at);
      assert.equal(inPlace.text(r, column), given.text(r, column), at);
      assert.equal(inPlace.raw(r, column), given.raw(r, column), at);
    }
  }
  assert.deepEqual(parsed.rows, records);
});

Deno.test("a column's dtype, numbers and values are pandas' whatever its cells begin with", () => {
  // Prevents the shortcuts for cells that cannot be numbers (a letter, a brace) changing a
  // dtype or a coerced number: each column is checked against the cell-by-cell rules.
  const rnd = random(20261131);
  const starts = [
    "",
    " ",
    "\u00a0",
    "+",
    "-",
    ".",
    "i",
    "I",
    "n",
    "T",
    "f",
    "{",
    "[",
    "#",
    "é",
    "1",
  ];
  const tails = [
    "",
    "1",
    "5.5",
    "nf",
    "nfinity",
    "rue",
    "alse",
    "an",
    "1[1]",
    "[1]",
    "BFLOAT16",
    " ",
  ];
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)];
  const columns: string[][] = Array.from({ length: 400 }, () => {
    // A few kinds per column, so that int, float, bool and object columns all occur.
    const kinds = Array.from(
      { length: 1 + Math.floor(rnd() * 3) },
      () => pick(starts) + pick(tails),
    );
    return Array.from({ length: 12 }, () => pick(kinds));
  });
  columns.push(["True", "false", "TRUE"], ["inf", "-Infinity", "7"], ["12", "x", "3"]);
  const kinds = new Set<string>();
  for (const cells of columns) {
    const frame = Frame.of({ header: ["C"], rows: cells.map((c) => [c]) });
    const dtype = inferDtype(cells);
    kinds.add(dtype);
    assert.equal(frame.dtype("C"), dtype, JSON.stringify(cells));
    cells.forEach((cell, r) => {
      const number = isNaToken(cell) ? NaN : parsePandasNumber(cell) ?? NaN;
      assert.ok(Object.is(frame.numeric(r, "C"), number), JSON.stringify(cell));
      const value = frame.value(r, "C");
      if (isNaToken(cell)) assert.equal(value, null);
      else if (dtype === "object") assert.equal(value, cell);
      else if (dtype === "bool") assert.equal(value, /^true$/i.test(cell));
      else assert.ok(Object.is(value, number), JSON.stringify(cell));
    });
  }
  assert.deepEqual([...kinds].sort(), ["bool", "float", "int", "object"]);
});

Deno.test("Python float() of a digit string is exact, leading zeros and long strings included", () => {
  // Prevents the digit shortcut in parsePythonFloat reading a cell unlike Python's float().
  const rnd = random(20261132);
  for (let i = 0; i < 5000; i++) {
    let cell = "";
    const length = 1 + Math.floor(rnd() * 22);
    for (let k = 0; k < length; k++) cell += String(Math.floor(rnd() * 10));
    // Python rounds a decimal string to the nearest double, as Number does.
    assert.ok(Object.is(parsePythonFloat(cell), Number(cell)), cell);
  }
  const python: [string, number | undefined][] = [
    ["007", 7],
    ["0", 0],
    ["-0", -0],
    [" 12 ", 12],
    ["1_000", 1000],
    ["1e3", 1000],
    ["12a", undefined],
    ["", undefined],
    ["+5", 5],
    ["-inf", -Infinity],
  ];
  for (const [cell, value] of python) assert.ok(Object.is(parsePythonFloat(cell), value), cell);
});

Deno.test("the first whitespace token is the first piece of Python's str.split()", () => {
  // Prevents the scanning pyFirstToken drifting from the splitting one on any whitespace.
  const rnd = random(20261133);
  const alphabet = ["a", "B", "1", " ", "\t", "\n", "\u00a0", "\u2003", "\u3000", "\u200b", "x"];
  for (let i = 0; i < 5000; i++) {
    let s = "";
    for (let k = Math.floor(rnd() * 9); k > 0; k--) s += alphabet[Math.floor(rnd() * 11)];
    assert.equal(pyFirstToken(s), pySplitWhitespace(s)[0], JSON.stringify(s));
  }
  assert.equal(pyFirstToken("  Matmul 32 x 64"), "Matmul");
  assert.equal(pyFirstToken(" \u3000 "), undefined);
});

Deno.test("pandas reads a digit cell as its number, and as an int while inside int64/uint64", () => {
  // Prevents a shortcut for long digit cells (19-digit host timestamps) changing a dtype or a value:
  // each cell is checked against pandas' patterns and the int64/uint64 range, applied here.
  const rnd = random(20261134);
  const int64Min = -(2n ** 63n);
  const uint64Max = 2n ** 64n - 1n;
  const isInt = (cell: string) => {
    const s = cell.trim();
    if (!/^[+-]?\d+$/.test(s)) return false;
    const v = BigInt(s);
    return v >= int64Min && v <= uint64Max;
  };
  const number = (cell: string) => {
    const s = cell.trim();
    return /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/.test(s) ? Number(s) : undefined;
  };
  const cells = ["9223372036854775807", "9223372036854775808", "-9223372036854775808"];
  cells.push("-9223372036854775809", "18446744073709551615", "18446744073709551616");
  cells.push("9999999999999999999", "1777000000000000000", "0", "", "+1", " 12");
  for (let i = 0; i < 5000; i++) {
    let cell = rnd() < 0.2 ? (rnd() < 0.5 ? "-" : "+") : "";
    for (let k = 1 + Math.floor(rnd() * 21); k > 0; k--) cell += String(Math.floor(rnd() * 10));
    cells.push(cell);
  }
  for (const cell of cells) {
    assert.equal(isPandasInt(cell), isInt(cell), cell);
    assert.ok(Object.is(parsePandasNumber(cell), number(cell)), cell);
  }
});

Deno.test("a tensor dimension read from a digits-and-brackets cell equals the one from its value", () => {
  // Prevents the raw-text reading of shape cells (which skips typing their columns) giving a
  // dimension the pandas value would not: in number, text and bool columns, NA and junk mixed in.
  const rnd = random(20261135);
  const kinds = ["32[1]", "32", "007", "0", "1[32]", "[1]", "3[", "]", "32.0", " 32", "True"];
  kinds.push("false", "nan", "", "N/A", "1_000", "\uFEFF5", "inf", "1e3", "-4", "64[64]");
  const pick = () => kinds[Math.floor(rnd() * kinds.length)];
  for (let t = 0; t < 400; t++) {
    // Columns of one, two or three kinds of cell, so every dtype (and quoting) occurs.
    const mix = Array.from({ length: 1 + Math.floor(rnd() * 3) }, pick);
    const cells = Array.from({ length: 8 }, () => mix[Math.floor(rnd() * mix.length)]);
    const quote = (c: string) => (rnd() < 0.2 ? `"${c}"` : c);
    const text = `A,B\n${cells.map((c) => `x,${quote(c)}`).join("\n")}\n`;
    const frame = Frame.of(parseCsvTable(text, "t.csv"));
    const reader = new RowReader(frame);
    cells.forEach((_cell, pos) => {
      const row = { pos, overlapNs: null, busyNs: null, merged: null };
      const expected = getValuePhysicalLogical(frame.value(pos, "B"));
      assert.equal(reader.dimension(row, "B"), expected, `${JSON.stringify(cells)} row ${pos}`);
    });
  }
});
