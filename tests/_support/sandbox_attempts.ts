// Run with the server's flags: tries each thing the server must never do and prints, per
// attempt, the error class it met ("allowed" if it was not stopped).
import { DatabaseSync } from "node:sqlite";

const dir = Deno.args[0];
const attempts: Record<string, () => unknown> = {
  write_file: () => Deno.writeTextFileSync(`${dir}/written.txt`, "x"),
  open_for_write: () => Deno.openSync(`${dir}/report.txt`, { write: true }).close(),
  create_dir: () => Deno.mkdirSync(`${dir}/made`),
  remove_file: () => Deno.removeSync(`${dir}/report.txt`),
  connect: () => Deno.connect({ hostname: "127.0.0.1", port: 9 }),
  listen: () => Deno.listen({ port: 0 }).close(),
  fetch: () => fetch("http://127.0.0.1:8080/"),
  spawn: () => new Deno.Command("true").outputSync(),
  load_library: () => Deno.dlopen("libc.so.6", {}),
  sqlite_writable: () => {
    const db = new DatabaseSync(`${dir}/db.sqlite`);
    db.exec("CREATE TABLE t (x)");
  },
  env_other: () => Deno.env.get("PATH"),
  system_info: () => Deno.hostname(),
};
const out: Record<string, string> = {};
for (const [name, attempt] of Object.entries(attempts)) {
  try {
    await attempt();
    out[name] = "allowed";
  } catch (e) {
    // fetch reports a refused permission as a TypeError caused by it.
    const cause = (e as Error).cause as Error | undefined;
    out[name] = cause?.name ?? (e as Error).name;
  }
}
console.log(JSON.stringify(out));
