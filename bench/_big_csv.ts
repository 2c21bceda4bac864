/**
 * Bench support: a large performance CSV made from a real one, its data rows repeated `copies`
 * times with GLOBAL CALL COUNT moved past the previous copy's (so every call count stays
 * distinct) and every line ended by `\n`; everything else is the source's bytes.
 * wh_clip_encoder_2's 2.7 MB CSV × 40 is the 110 MB (109,932,217 bytes), 74,880-row input of
 * issue 33's first goal.
 *
 * `deno run --allow-read --allow-write bench/_big_csv.ts SOURCE.csv OUT.csv [copies]`
 * @module
 */

/** Writes `copies` copies of `source`'s data rows after its header to `out`; its byte count. */
export async function writeBigCsv(source: string, out: string, copies: number): Promise<number> {
  const text = (await Deno.readTextFile(source)).replaceAll("\r\n", "\n");
  const firstBreak = text.indexOf("\n") + 1;
  const header = text.slice(0, firstBreak);
  const gcc = header.split(",").findIndex((h) => h.trim() === "GLOBAL CALL COUNT");
  if (gcc < 0) throw new Error(`${source} has no GLOBAL CALL COUNT column`);
  // Data lines with their own line ends; none of the source's quoted fields hold a line break.
  const lines = text.slice(firstBreak).split(/(?<=\n)/);
  const counts = lines.map((l) => Number(l.split(",")[gcc]));
  const step = Math.max(...counts.filter(Number.isFinite)) + 1;
  const file = await Deno.open(out, { write: true, create: true, truncate: true });
  const enc = new TextEncoder();
  let bytes = 0;
  try {
    const write = async (s: string) => {
      const b = enc.encode(s);
      bytes += b.length;
      for (let at = 0; at < b.length;) at += await file.write(b.subarray(at));
    };
    await write(header);
    for (let k = 0; k < copies; k++) {
      const parts: string[] = [];
      lines.forEach((line, i) => {
        if (k === 0 || !Number.isFinite(counts[i])) return void parts.push(line);
        const cells = line.split(",");
        cells[gcc] = String(counts[i] + k * step);
        parts.push(cells.join(","));
      });
      await write(parts.join(""));
    }
  } finally {
    file.close();
  }
  return bytes;
}

if (import.meta.main) {
  const [source, out, copies] = Deno.args;
  console.log(await writeBigCsv(source, out, Number(copies ?? 40)));
}
