/**
 * `deno task readme`: rewrites README.md's tool table from the tool list, so the README says
 * what the server offers. A test fails while the two differ.
 */
import { loadTools } from "../src/tools/registry.ts";
import { toolTable, withToolTable } from "../src/cli/tool_list.ts";

const path = new URL("../README.md", import.meta.url);
const readme = await Deno.readTextFile(path);
await Deno.writeTextFile(path, withToolTable(readme, toolTable(await loadTools())));
const fmt = await new Deno.Command(Deno.execPath(), { args: ["fmt", path.pathname] }).output();
if (fmt.code !== 0) Deno.exit(fmt.code);
console.error("readme: wrote the tool table");
