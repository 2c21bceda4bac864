/**
 * Exchanges two paths with `renameat2(RENAME_EXCHANGE)` as fast as it can for a given time,
 * resting 2 ms after every 1,000 exchanges (the paths as they began, so some loads find the
 * report still and are answered: those answers are what the tests check), then prints how many
 * it made (always even: both paths end as they began). The `--root` race tests run it as a
 * child process — it needs `--allow-ffi`, which the server never has — against a report
 * directory or file and a symlink to outside.
 *
 *   deno run --allow-ffi scripts/_exchange_swapper.ts <a> <b> <milliseconds>
 *
 * @module
 */

const RENAME_EXCHANGE = 2;
const AT_FDCWD = -100;

const [a, b, ms] = Deno.args;
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
  if (swaps % 1000 === 0) Atomics.wait(rest, 0, 0, 2);
}
console.log(JSON.stringify({ swaps, failed }));
