/**
 * `deno task compile [--target T]… [--out DIR] [--usage-dir DIR]`: builds `ttnn-visualizer-mcp-<target>` for
 * each release target with the server's permission flags baked in, then writes
 * `DIR/SHA256SUMS`. `deno compile` downloads a `denort` runtime per target; where that
 * download is impossible, point `DENORT_BIN` at a local denort and name its one target.
 * `--usage-dir` (an absolute path) grants the binaries write access to that one directory, for
 * the usage-events file.
 */
import { chooseTargets, planBuilds, sumLine } from "./compile_plan.ts";

const asked: string[] = [];
let outDir = "dist";
let usageDir: string | undefined;
for (let i = 0; i < Deno.args.length; i++) {
  const a = Deno.args[i];
  if (a === "--target") asked.push(Deno.args[++i]);
  else if (a === "--out") outDir = Deno.args[++i];
  else if (a === "--usage-dir") usageDir = Deno.args[++i];
  else {
    console.error(`compile: unknown argument ${a}`);
    Deno.exit(2);
  }
}

const denortBin = Deno.env.get("DENORT_BIN");
let targets;
try {
  targets = chooseTargets(asked, denortBin);
} catch (e) {
  console.error(`compile: ${(e as Error).message}`);
  Deno.exit(2);
}
await Deno.mkdir(outDir, { recursive: true });
const sums: string[] = [];
for (const build of planBuilds(targets, outDir, { usageDir })) {
  console.error(
    `compile: ${build.target} -> ${build.output}${denortBin ? ` (DENORT_BIN=${denortBin})` : ""}`,
  );
  const { code } = await new Deno.Command(Deno.execPath(), {
    args: build.args,
    stdout: "inherit",
    stderr: "inherit",
  })
    .output();
  if (code !== 0) {
    console.error(`compile: deno compile failed for ${build.target} (exit ${code})`);
    Deno.exit(1);
  }
  const digest = await crypto.subtle.digest("SHA-256", await Deno.readFile(build.output));
  const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
  sums.push(sumLine(hex, build.output.slice(outDir.length + 1)));
}
await Deno.writeTextFile(`${outDir}/SHA256SUMS`, sums.join("\n") + "\n");
console.error(`compile: wrote ${sums.length} binaries and ${outDir}/SHA256SUMS`);
