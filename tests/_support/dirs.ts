/** Test support: throwaway report directories built from the demo capture or from text. */

/** The bundled demo capture. */
export const DEMO = new URL("../../fixtures/demo/", import.meta.url).pathname;

/** A fresh temporary directory, removed by the returned disposer. */
export async function tempDir(): Promise<{ path: string; [Symbol.asyncDispose](): Promise<void> }> {
  const path = await Deno.realPath(await Deno.makeTempDir({ prefix: "ttnn-mcp-test-" }));
  return {
    path,
    async [Symbol.asyncDispose]() {
      await Deno.remove(path, { recursive: true }).catch(() => {});
    },
  };
}

/** Writes `files` (name → text or bytes) under `dir`, creating sub-directories. */
export async function writeFiles(
  dir: string,
  files: Record<string, string | Uint8Array>,
): Promise<void> {
  for (const [name, content] of Object.entries(files)) {
    const path = `${dir}/${name}`;
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    if (typeof content === "string") await Deno.writeTextFile(path, content);
    else await Deno.writeFile(path, content);
  }
}

/** Copies the demo capture's `performance` and `profiler` directories under `dir`. */
export async function copyDemo(dir: string): Promise<{ performance: string; profiler: string }> {
  for (const side of ["performance", "profiler"]) {
    await Deno.mkdir(`${dir}/${side}`, { recursive: true });
    for await (const entry of Deno.readDir(`${DEMO}${side}`)) {
      await Deno.copyFile(`${DEMO}${side}/${entry.name}`, `${dir}/${side}/${entry.name}`);
    }
  }
  return { performance: `${dir}/performance`, profiler: `${dir}/profiler` };
}

/**
 * Waits (at most a second) until the clock has left the second of `path`'s last change: Deno
 * gives a file's change time to the second only, so a rewrite within it would look unchanged.
 */
export async function pastChangeSecond(path: string): Promise<void> {
  const ctime = (await Deno.stat(path)).ctime!.getTime();
  // The file system stamps times from a coarse clock that can lag Date.now() by a tick or two
  // (several ms on a busy machine), so the wait goes well past the second.
  const wait = ctime + 1000 - Date.now();
  if (wait > -100) await new Promise((resolve) => setTimeout(resolve, wait + 100));
}
