/**
 * What an agent pays per answer on the shared captures: the bytes of each answerable tool's
 * default answer (the JSON text of its content, as the SDK client gets it; diff_reports
 * diffs a capture against itself) and of the largest realistic ask (limit 100, with every
 * include group where the tool takes include), one JSON object by capture and tool.
 *
 * The checkout measured is `--repo DIR` (default this one), run through its own
 * tests/_support/server.ts, so an older commit is measured as it answered then:
 *
 *   git worktree add /tmp/old dca4570 && ln -s "$PWD/node_modules" /tmp/old/node_modules
 *   deno run -A --config /tmp/old/deno.json bench/answer_sizes.ts --repo /tmp/old
 *   deno run -A bench/answer_sizes.ts
 *
 * @module
 */
import { INCLUDE_GROUPS } from "../src/analysis/include_groups.ts";

const i = Deno.args.indexOf("--repo");
const repo = i >= 0
  ? Deno.args[i + 1].replace(/\/?$/, "/")
  : new URL("../", import.meta.url).pathname;
const { connect } = await import(`${repo}tests/_support/server.ts`);
const captures = new URL("../../shared/captures/perf/", import.meta.url).pathname;

type Text = { content: { text: string }[]; structuredContent: Record<string, unknown> };
const bytes = (r: Text) => new TextEncoder().encode(r.content[0].text).length;
const sizes: Record<string, Record<string, number>> = {};
const { client, close } = await connect();
try {
  const tools = (await client.listTools()).tools as {
    name: string;
    inputSchema: { properties: Record<string, unknown> };
  }[];
  const takes = (tool: string, arg: string) =>
    arg in (tools.find((t) => t.name === tool)?.inputSchema.properties ?? {});
  const names = [...Deno.readDirSync(captures)].filter((e) => e.isDirectory).map((e) => e.name);
  for (const capture of names.sort()) {
    const loaded: Text = await client.callTool({
      name: "load_report",
      arguments: { performance_path: captures + capture },
    });
    const { handle, answerable } = loaded.structuredContent as {
      handle: string;
      answerable: string[];
    };
    const of: Record<string, number> = { load_report: bytes(loaded) };
    for (const tool of answerable) {
      const args = tool === "diff_reports" ? { handle_a: handle, handle_b: handle } : { handle };
      of[tool] = bytes(await client.callTool({ name: tool, arguments: args }));
      if (takes(tool, "limit")) {
        const most = {
          ...args,
          limit: 100,
          ...(takes(tool, "include") ? { include: [...INCLUDE_GROUPS] } : {}),
        };
        of[`${tool} (largest)`] = bytes(await client.callTool({ name: tool, arguments: most }));
      }
    }
    sizes[capture] = of;
  }
} finally {
  await close();
}
console.log(JSON.stringify(sizes, null, 1));
