/**
 * The notes as MCP resources, through the SDK client: advertised in initialize, listed as
 * `ttnn://notes/<id>`, each read back with its text, and an unknown uri answered with MCP's
 * resource-not-found error naming it.
 */
import assert from "node:assert/strict";
import { callOk, connect } from "../_support/server.ts";
import { DEMO } from "../_support/dirs.ts";
import { NOTES } from "../../src/tools/notes.ts";
import { TOOL_NAMES } from "../../src/tools/registry.ts";

Deno.test("initialize advertises resources and resources/list gives every note's and schema's uri", async () => {
  // Prevents the notes answers name being out of a client's reach.
  const { client, close } = await connect();
  try {
    assert.ok(client.getServerCapabilities()?.resources);
    const { resources } = await client.listResources();
    assert.deepEqual(resources.map((r) => r.uri), [
      ...NOTES.map((n) => `ttnn://notes/${n.id}`),
      ...TOOL_NAMES.map((n) => `ttnn://schemas/${n}`),
    ]);
    for (const r of resources) {
      assert.equal(
        r.mimeType,
        r.uri.includes("/schemas/") ? "application/schema+json" : "text/plain",
      );
    }
  } finally {
    await close();
  }
});

Deno.test("resources/read gives each note's text", async () => {
  // Prevents a listed note whose read answers nothing or another note's text.
  const { client, close } = await connect();
  try {
    for (const n of NOTES) {
      const uri = `ttnn://notes/${n.id}`;
      const { contents } = await client.readResource({ uri });
      assert.equal(contents.length, 1);
      assert.equal(contents[0].uri, uri);
      assert.equal((contents[0] as { text: string }).text, n.text);
    }
  } finally {
    await close();
  }
});

Deno.test("resources/read of an unknown uri is MCP's resource-not-found error naming it", async () => {
  // Prevents an unknown uri answered with an empty read, or an error that does not say which.
  const { client, close } = await connect();
  try {
    await assert.rejects(
      () => client.readResource({ uri: "ttnn://notes/no.such" }),
      (e: { code?: number; message?: string }) => {
        assert.equal(e.code, -32002);
        assert.match(String(e.message), /ttnn:\/\/notes\/no\.such/);
        return true;
      },
    );
  } finally {
    await close();
  }
});

Deno.test("resources/read gives a tool's answer schema, naming every field a real answer has", async () => {
  // Prevents the generated answer schemas staying in the repository, out of a client's reach.
  const { client, close } = await connect();
  try {
    const { contents } = await client.readResource({ uri: "ttnn://schemas/top_ops" });
    assert.equal(contents[0].mimeType, "application/schema+json");
    const schema = JSON.parse((contents[0] as { text: string }).text) as {
      type: string;
      properties: Record<string, unknown>;
    };
    assert.equal(schema.type, "object");
    const { handle } = await callOk(client, "load_report", {
      performance_path: `${DEMO}performance`,
    });
    const answer = await callOk(client, "top_ops", { handle });
    for (const field of Object.keys(answer)) {
      assert.ok(field in schema.properties, `top_ops answers '${field}'; its schema lacks it`);
    }
  } finally {
    await close();
  }
});
