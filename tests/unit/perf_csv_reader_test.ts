import assert from "node:assert/strict";
import {
  chooseOpsCsv,
  CsvPieces,
  decodeUtf8,
  lineOfInvalidByte,
  MAX_PERFORMANCE_CSV_BYTES,
  readOpsCsv,
} from "../../src/perf_report/probe.ts";
import { fromInfo } from "../../src/kit/file_identity.ts";
import { tempDir } from "../_support/dirs.ts";

const HEADER = "OP CODE,OP TYPE,DEVICE ID,ATTRIBUTES,INPUT_0_MEMORY,GLOBAL CALL COUNT," +
  "DEVICE KERNEL DURATION [ns],OP TO OP LATENCY [ns]\n";
const ROW = ",tt_dnn_device,0,{},DEV_0_DRAM_INTERLEAVED,1,100,0\n";
const utf8 = (s: string) => new TextEncoder().encode(s);

async function read(bytes: Uint8Array) {
  await using dir = await tempDir();
  await Deno.writeFile(`${dir.path}/ops_perf_results_x.csv`, bytes);
  return await readOpsCsv((await chooseOpsCsv(dir.path))!);
}

Deno.test("a CSV that spells out U+FFFD is read, not refused as invalid UTF-8", async () => {
  // Prevents the fast decoder's replacement check from refusing a valid file.
  const got = await read(utf8(`${HEADER}Matmul\uFFFD${ROW}`));
  assert.equal(got.ok, true);
  if (got.ok) assert.equal(got.table.rows[0][0], "Matmul\uFFFD");
});

Deno.test("an invalid byte is refused with its line even where U+FFFD is spelled out", async () => {
  // Prevents a replaced byte passing for text because the file also holds a real U+FFFD.
  const bytes = new Uint8Array([...utf8(`${HEADER}A\uFFFD${ROW}B`), 0xc3, ...utf8(ROW)]);
  const got = await read(bytes);
  assert.equal(got.ok, false);
  if (!got.ok) {
    assert.match(got.problem, /is not UTF-8 text \(the first invalid byte is on line 3\)/);
  }
});

Deno.test("decoding drops a leading BOM and keeps non-ASCII text", () => {
  // Prevents the fast path reading a BOM into the first header name or mangling text.
  assert.equal(decodeUtf8(new Uint8Array([0xef, 0xbb, 0xbf, ...utf8("é,x")])), "é,x");
  assert.equal(decodeUtf8(new Uint8Array([0xed, 0xa0, 0x80])), null); // a lone surrogate
});

/** What `CsvPieces` makes of `bytes` read `step` bytes at a time into pieces of `piece` bytes. */
function readPieces(bytes: Uint8Array, step: number, piece: number) {
  const pieces = new CsvPieces("x.csv", bytes.length, piece);
  pieces.start();
  for (let at = 0; at < bytes.length;) {
    const room = pieces.room();
    const n = Math.min(step, room.length, bytes.length - at);
    room.set(bytes.subarray(at, at + n));
    pieces.took(n);
    at += n;
  }
  const got = pieces.end(fromInfo("x.csv", { size: bytes.length } as Deno.FileInfo));
  return got.ok ? { header: got.table.header, rows: got.table.rows } : { problem: got.problem };
}

Deno.test("a CSV read in pieces of bytes is read as the whole file is, refusals included", () => {
  // Prevents a piece boundary (inside a quoted line break, a CRLF, a UTF-8 character or a
  // BOM-like character) changing a cell, a row or which refusal names which line.
  const rows = Array.from(
    { length: 40 },
    (_, r) =>
      r % 7 === 3
        ? `Op${r},tt_dnn_device,0,"{a,\r\nb é}",DEV_0_DRAM_INTERLEAVED,${r},100,0\r\n`
        : `\uFEFFOp${r},tt_dnn_device,0,{é},DEV_0_DRAM_INTERLEAVED,${r},${r * 7},0\r\n`,
  );
  const good = utf8(HEADER + rows.join(""));
  const wide = utf8(HEADER + rows.slice(0, 5).join("") + "a,b,c,d,e,f,g,h,i\n" + rows.join(""));
  const invalid = new Uint8Array([...wide, ...utf8(ROW), 0xc3, 0x28, ...utf8(ROW)]);
  const cases = [good, wide, invalid, utf8("\n\n \n"), new Uint8Array(0), utf8(HEADER)];
  for (const bytes of cases) {
    const whole = readPieces(bytes, bytes.length + 1, bytes.length + 1);
    for (const [step, piece] of [[1, 1], [3, 16], [7, 64], [100, 13], [4096, 300]]) {
      assert.deepEqual(readPieces(bytes, step, piece), whole, `${step}/${piece}`);
    }
  }
  assert.equal((readPieces(good, 5, 50) as { rows: string[][] }).rows[3][3], "{a,\nb é}");
  assert.match(
    (readPieces(invalid, 5, 50) as { problem: string }).problem,
    new RegExp(
      `not UTF-8 text \\(the first invalid byte is on line ${lineOfInvalidByte(invalid)}\\)`,
    ),
  );
  assert.match(
    (readPieces(wide, 5, 50) as { problem: string }).problem,
    /line 8: expected 8 fields \(as in the header\), saw 9/,
  );
});

Deno.test("a CSV larger than the cap is refused before a byte of it is read", () => {
  // Prevents a huge file from being streamed through the parser only to be refused at the end.
  const pieces = new CsvPieces("big.csv", MAX_PERFORMANCE_CSV_BYTES + 1);
  assert.throws(() => pieces.start(), /big\.csv is 256 MiB \(268435457 bytes\), more than/);
});
