import assert from "node:assert/strict";
import { chooseOpsCsv, decodeUtf8, readOpsCsv } from "../../src/perf_report/probe.ts";
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
