/**
 * A worker that flips a symlink between targets as fast as it can — a new link made beside it
 * and renamed over it, so the name always exists — until told to stop; it says "started" as
 * it begins, and then answers how many flips it made. The symlink-race tests and bench use it against `--root`.
 *
 *   worker.postMessage({ link, targets }); (hear "started") … worker.postMessage("stop");
 *
 * @module
 */
/// <reference lib="deno.worker" />

let stop = false;

self.onmessage = async (e: MessageEvent<{ link: string; targets: string[] } | "stop">) => {
  if (e.data === "stop") {
    stop = true;
    return;
  }
  const { link, targets } = e.data;
  const spare = `${link}.swap`;
  let flips = 0;
  self.postMessage("started");
  while (!stop) {
    for (const target of targets) {
      try {
        Deno.removeSync(spare);
      } catch { /* not there */ }
      Deno.symlinkSync(target, spare);
      Deno.renameSync(spare, link);
      flips++;
    }
    // Let the "stop" message in now and then.
    if (flips % 64 === 0) await new Promise((r) => setTimeout(r, 0));
  }
  self.postMessage(flips);
};
