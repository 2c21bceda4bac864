/**
 * ttnn-visualizer-mcp: a read-only Model Context Protocol server over Tenstorrent TT-NN
 * profiler and performance reports. Run it with no arguments to serve MCP on stdio.
 *
 * @module
 */
import { main } from "./src/cli/main.ts";

if (import.meta.main) Deno.exit(await main(Deno.args));
