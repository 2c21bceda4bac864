/**
 * The WebAssembly row parser (`_row_parser.ts`) against a plain reference of its rules, and
 * the line scanner with it against the scanner's byte loop alone, over random buffers holding
 * every byte the rules name (quotes, tabs, `\r`, spaces, commas, bytes of 0x80 and above)
 * with lines at the buffer's edges.
 */
import assert from "node:assert/strict";
import {
  CAPACITY,
  F_RISC,
  F_RUN,
  F_SKIP,
  F_SLOT,
  F_TIME,
  F_X,
  F_Y,
  F_ZONE,
  RECORD,
  RowParser,
} from "../../src/device_log/_row_parser.ts";
import { LineScanner } from "../../src/device_log/_scan.ts";
import { ByteInterner } from "../../src/device_log/_intern.ts";
import type { FieldLayout, RowSink } from "../../src/device_log/_fields.ts";
import { isAscii } from "../../src/device_log/_utf8.ts";
import { random } from "../../scripts/_random.ts";

const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];

/** A field as the odd captures have them: mostly plain, now and then anything the rules name. */
function field(r: () => number): string {
  const digits = (n: number) => Array.from({ length: n }, () => String(Math.floor(r() * 10)));
  return pick(r, [
    () => digits(1 + Math.floor(r() * 20)).join(""),
    () => " " + digits(1 + Math.floor(r() * 10)).join(""),
    () => " " + digits(1 + Math.floor(r() * 19)).join("") + pick(r, ["", " ", "\r", " \r "]),
    () => pick(r, [" BRISC", " NCRISC", "TRISC_0", " BRISC-FW", " nan", "", " ", " ZONE_START"]),
    () => pick(r, [" ZONE_END", " end", " begin", "ZONE_START ", " x\r", "a b", "\u00e9t\u00e9"]),
    () => pick(r, ['"q, r"', ' "q', "\tBRISC", " 1\t", 'x"y', "\u0080", "1\u00ff", "\r"]),
    () => pick(r, ["-1", "+2", "1.5", "1e3", " 12a", "0x10", "  ", "\r\r"]),
  ])();
}

/** A line of `n` fields (without its line break). */
function line(r: () => number, n: number): string {
  if (r() < 0.03) return pick(r, ["", " ", "\r", "  \r", " ,", "\t"]);
  return Array.from({ length: n }, () => field(r)).join(",");
}

/** Bytes of a string whose every character is one byte (Latin-1), so any byte can be written. */
const latin1 = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0) & 0xff);

/**
 * The rules of `_row_parser.ts`, read a line at a time with string operations: what each
 * line's record should be (its `\n`, plain or not, then its figures when plain).
 */
function reference(bytes: Uint8Array, from: number, next: number, kinds: number[]): number[][] {
  const out: number[][] = [];
  let start = from;
  while (start < next) {
    const end = bytes.indexOf(10, start);
    const text = String.fromCharCode(...bytes.subarray(start, end));
    out.push([end, ...plainRow(text, start, kinds)]);
    start = end + 1;
  }
  return out;
}

/** [0, figures…] for a plain row, [1] for any other line. */
function plainRow(text: string, at: number, kinds: number[]): number[] {
  if (/^ *(\r|$)/.test(text)) return [1];
  const cells = text.split(",");
  if (cells.length < kinds.length) return [1];
  const figures = new Map<string, number>();
  let offset = at;
  for (let f = 0; f < kinds.length; f++) {
    const cell = cells[f];
    const body = cell.replace(/^ +/, "");
    if (body.startsWith('"') || body.startsWith("\t")) return [1];
    const s = offset + cell.length - body.length;
    const k = kinds[f];
    if (k >= F_SLOT && k <= F_RUN) {
      const m = /^([0-9]{1,9})[ \r]*$/.exec(body);
      if (!m) return [1];
      figures.set(`n${k}`, Number(m[1]));
    } else if (k === F_TIME) {
      const m = /^([0-9]{1,18})[ \r]*$/.exec(body);
      if (!m) return [1];
      const v = BigInt(m[1]);
      figures.set("hi", Number(v / 10n ** 9n));
      figures.set("lo", Number(v % 10n ** 9n));
    } else if (k !== F_SKIP) {
      figures.set(`s${k}`, s);
      figures.set(`e${k}`, s + body.replace(/[ \r]+$/, "").length);
    }
    offset += cell.length + 1;
  }
  return [0, ...[...figures.entries()].sort().map(([, v]) => v)];
}

/** The parser's records for `[from, next)`, in the reference's shape. */
function parsed(p: RowParser, from: number, next: number, kinds: number[]): number[][] {
  const out: number[][] = [];
  let pos = from;
  while (pos < next) {
    p.parse(pos, next);
    assert.ok(p.count > 0 && p.count <= CAPACITY);
    for (let i = 0; i < p.count; i++) {
      const r = p.records.subarray(i * RECORD, (i + 1) * RECORD);
      if (r[1] !== 0) {
        out.push([r[0], 1]);
        continue;
      }
      const figures = new Map<string, number>();
      for (const k of kinds) {
        if (k >= F_SLOT && k <= F_RUN) figures.set(`n${k}`, r[1 + k]);
        else if (k === F_TIME) {
          figures.set("hi", r[6]);
          figures.set("lo", r[7]);
        } else if (k !== F_SKIP) {
          figures.set(`s${k}`, r[8 + 2 * (k - F_ZONE)]);
          figures.set(`e${k}`, r[9 + 2 * (k - F_ZONE)]);
        }
      }
      out.push([r[0], 0, ...[...figures.entries()].sort().map(([, v]) => v)]);
    }
    pos = p.reached;
  }
  assert.equal(pos, next);
  return out;
}

const LAYOUTS: number[][] = [
  // profile_log_device.csv's own: slot, x, y, RISC, timer, time, data, run, …, zone, type.
  [F_SLOT, F_X, F_Y, F_RISC, F_SKIP, F_TIME, F_SKIP, F_RUN, F_SKIP, F_SKIP, F_ZONE, 8],
  [F_ZONE, F_TIME, F_SLOT, F_SKIP, F_X, F_Y, F_RUN, F_RISC],
  [F_TIME],
  [F_SKIP, F_RISC],
];

Deno.test("the row parser records every line as its rules' plain reference reads it", () => {
  // Prevents the WebAssembly parser calling a line plain that the byte loop must read (a
  // quote, a tab, a tenth digit, a short row), or misplacing a field's figures.
  const r = random(33);
  for (let round = 0; round < 300; round++) {
    const kinds = pick(r, LAYOUTS);
    const lines = Array.from(
      { length: 1 + Math.floor(r() * 40) },
      () => line(r, kinds.length - 2 + Math.floor(r() * 5)),
    );
    const body = latin1(lines.join("\n") + "\n");
    // Lines at any offset, and ending at the very end of the buffer.
    const lead = Math.floor(r() * 17);
    const size = lead + body.length;
    const p = new RowParser(size, kinds);
    p.buffer.fill(10);
    p.buffer.set(body, lead);
    const expected = reference(p.buffer, lead, size, kinds);
    assert.deepEqual(parsed(p, lead, size, kinds), expected, `round ${round}: ${lines}`);
  }
});

Deno.test("the row parser carries on across calls when a buffer holds more lines than it records", () => {
  // Prevents the lines past one call's records being dropped or read twice.
  const kinds = LAYOUTS[0];
  const row = "0, 1, 1, BRISC, 1, 14168404361928, 0, 1024, , , BRISC-FW, ZONE_START, 10, f.cc, ";
  const odd = '0, 1, 1, "BRISC", 1, 2, 0, 1024, , , FW, ZONE_END, 10, f.cc, ';
  const text = Array.from({ length: 2 * CAPACITY + 7 }, (_, i) => (i % 1000 === 0 ? odd : row))
    .join("\n") + "\n";
  const body = latin1(text);
  const p = new RowParser(body.length, kinds);
  p.buffer.set(body);
  const got = parsed(p, 0, body.length, kinds);
  assert.equal(got.length, 2 * CAPACITY + 7);
  assert.deepEqual(got, reference(p.buffer, 0, body.length, kinds));
  assert.equal(got.filter((g) => g[1] === 1).length, 9);
});

/** Records every call a scanner makes of its sink. */
class Recorder implements RowSink {
  readonly calls: (string | number)[][] = [];
  row(...args: number[]): void {
    this.calls.push(["row", ...args]);
  }
  bad(line: number, zone: number, why: number): void {
    this.calls.push(["bad", line, zone, why]);
  }
  unnamed(): void {
    this.calls.push(["unnamed"]);
  }
}

/** What a scanner hands its sink for `text` read through `buf` in pieces of `size` bytes. */
function scanned(
  text: Uint8Array,
  layout: FieldLayout,
  size: number,
  parsedBuffer: boolean,
): { calls: (string | number)[][]; lines: number; rows: number; zones: string[] } {
  const sink = new Recorder();
  const zones = new ByteInterner();
  const scanner = new LineScanner(layout, sink, zones, new ByteInterner(), 1);
  const buf = parsedBuffer ? scanner.buffer(size + 1) : new Uint8Array(size + 1);
  let at = 0;
  let filled = 0;
  while (true) {
    const n = Math.min(size - filled, text.length - at);
    buf.set(text.subarray(at, at + n), filled);
    at += n;
    filled += n;
    const eof = at === text.length;
    const used = scanner.scan(buf, 0, filled, eof);
    if (eof) break;
    assert.ok(used > 0, "a line longer than the test's buffer");
    buf.copyWithin(0, used, filled);
    filled -= used;
  }
  return { calls: sink.calls, lines: scanner.line, rows: scanner.rows, zones: zones.names };
}

Deno.test("the line scanner reads the same rows with the row parser as with its byte loop alone", () => {
  // Prevents the parsed path handing a row over with other figures, other names, or in
  // another order than the byte loop — or losing a bad, short, blank or quoted line's count.
  const r = random(7);
  const layout: FieldLayout = {
    slot: 0,
    x: 1,
    y: 2,
    risc: 3,
    time: 5,
    run: 7,
    zone: 10,
    phase: 11,
    last: 11,
  };
  const plain = () =>
    `${Math.floor(r() * 8)}, ${1 + Math.floor(r() * 12)}, ${1 + Math.floor(r() * 10)}, ` +
    `${pick(r, ["BRISC", "NCRISC", "TRISC_0"])}, 1, ${14168404361928 + Math.floor(r() * 1e9)}` +
    `, 0, ${pick(r, [1024, 2048])}, , , ${pick(r, ["BRISC-FW", "TRISC-KERNEL", "nan", ""])}, ` +
    `${pick(r, ["ZONE_START", "ZONE_END", "TS_DATA"])}, 10, firmware.cc, ${
      pick(r, ["", '"a,\tb"'])
    }`;
  // A plain row with one field swapped for an odd one: a line that is nearly plain.
  const nearly = () => {
    const cells = plain().split(",");
    cells[Math.floor(r() * 13)] = field(r);
    return cells.join(",");
  };
  for (let round = 0; round < 40; round++) {
    const lines = Array.from(
      { length: 200 },
      () =>
        pick(r, [plain, plain, plain, nearly, nearly, () => line(r, 10 + Math.floor(r() * 6))])(),
    );
    const text = latin1(lines.join(pick(r, ["\n", "\r\n"])) + pick(r, ["", "\n"]));
    const size = 600 + Math.floor(r() * 400);
    const bytes = scanned(text, layout, size, false);
    assert.ok(bytes.calls.some((c) => c[0] === "row"));
    assert.deepEqual(scanned(text, layout, size, true), bytes, `round ${round}`);
  }
});

Deno.test("names that share a dictionary slot or differ only in their last bytes keep their numbers", () => {
  // Prevents the parser's name dictionary answering one zone or RISC with another's number:
  // a slot taken by a later name, a difference past the first eight bytes, a name of more
  // than the dictionary holds.
  const r = random(11);
  const layout: FieldLayout = {
    slot: 0,
    x: 1,
    y: 2,
    risc: 3,
    time: 5,
    run: 7,
    zone: 10,
    phase: 11,
    last: 11,
  };
  const names: string[] = [];
  for (const n of [1, 7, 8, 9, 15, 16, 17, 39, 40, 41, 60]) {
    for (let i = 0; i < 40; i++) {
      const base = "z".repeat(n);
      // The same length, first, middle and last byte: the same slot, told apart further in.
      const at = n > 3 ? 1 + (i % (n - 2)) : 0;
      names.push(base.slice(0, at) + String.fromCharCode(65 + (i % 50)) + base.slice(at + 1));
    }
  }
  const riscs = ["BRISC", "BRISC ", "BRISCX", "NCRISC", "TRISC_0", "TRISC_1", "T".repeat(45)];
  const phases = ["ZONE_START", "ZONE_END", "begin", "end", "ZONE_ENDX", "", "TS_DATA"];
  const lines = Array.from(
    { length: 6000 },
    () =>
      `0, 1, 1, ${pick(r, riscs)}, 1, ${1000 + Math.floor(r() * 1e6)}, 0, 7, , , ${
        pick(r, names)
      }, ${pick(r, phases)}, 10, f.cc, `,
  );
  const text = latin1(lines.join("\n") + "\n");
  const bytes = scanned(text, layout, 4096, false);
  assert.equal(new Set(bytes.zones).size, new Set(names).size);
  assert.deepEqual(scanned(text, layout, 4096, true), bytes);
});

Deno.test("the parser's ASCII test finds a high byte anywhere in a stretch, and only there", () => {
  // Prevents a byte of 0x80 or more at a stretch's edge or in its last few bytes (past the
  // last full sixteen) being missed, so a line that is not UTF-8 would go unrefused.
  const r = random(5);
  const p = new RowParser(300, [F_SKIP]);
  for (let round = 0; round < 3000; round++) {
    for (let i = 0; i < 300; i++) p.buffer[i] = Math.floor(r() * 128);
    const from = Math.floor(r() * 60);
    const to = from + Math.floor(r() * 240);
    if (r() < 0.7) {
      const at = pick(r, [from, to - 1, to, from - 1, from + Math.floor(r() * (to - from + 1))]);
      if (at >= 0 && at < 300) p.buffer[at] = 0x80 + Math.floor(r() * 128);
    }
    assert.equal(p.ascii(from, to), isAscii(p.buffer, from, to), `round ${round}: ${from}–${to}`);
  }
});
