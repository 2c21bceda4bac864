/**
 * Exchanges two paths with `renameat2(RENAME_EXCHANGE)` as fast as it can for a given time, in
 * bursts of 1,000 exchanges (or as given); after each it rests, the paths as they began, for a random 5 to
 * 40 ms (or as given) — some rests shorter than the server waits for a directory to hold still (12 ms), some
 * longer, so some loads find the report still and are answered (those answers are what the
 * tests check), and bursts begin at every point of a load. It then prints how many exchanges it
 * made (always even: both paths end as they began). The `--root` race tests run it as a
 * child process — it needs `--allow-ffi`, which the server never has — against a report
 * directory or file and a symlink to outside.
 *
 *   deno run --allow-ffi scripts/_exchange_swapper.ts <a> <b> <milliseconds> [rest from] [rest to] [burst]
 *
 * @module
 */

const RENAME_EXCHANGE = 2;
const AT_FDCWD = -100;

const [a, b, ms, restFrom = "5", restTo = "40", burstOf = "1000"] = Deno.args;
const [from, to, burst] = [Number(restFrom), Number(restTo), Number(burstOf)];
const libc = Deno.dlopen("libc.so.6", {
  renameat2: { parameters: ["i32", "buffer", "i32", "buffer", "u32"], result: "i32" },
});
const enc = new TextEncoder();
const pa = enc.encode(a + "\0");
const pb = enc.encode(b + "\0");
const end = Date.now() + Number(ms);
let swaps = 0;
let failed = 0;
const rest = new Int32Array(new SharedArrayBuffer(4));
while (Date.now() < end || swaps % 2 !== 0) {
  if (libc.symbols.renameat2(AT_FDCWD, pa, AT_FDCWD, pb, RENAME_EXCHANGE) === 0) swaps++;
  else if (++failed > 1000 && swaps === 0) break;
  if (swaps % burst === 0) Atomics.wait(rest, 0, 0, from + Math.random() * (to - from));
}
console.log(JSON.stringify({ swaps, failed }));
