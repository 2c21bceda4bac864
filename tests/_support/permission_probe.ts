// Run with the server's flags: prints what each permission resolves to.
const names = [
  { name: "write" },
  { name: "net" },
  { name: "run" },
  { name: "ffi" },
  { name: "sys" },
  { name: "env", variable: "PATH" },
  { name: "env", variable: "HOME" },
  { name: "read", path: "/" },
] as const;
const out: Record<string, string> = {};
for (const d of names) {
  const key = d.name + ("variable" in d ? `:${d.variable}` : "");
  out[key] = (await Deno.permissions.query(d as Deno.PermissionDescriptor)).state;
}
console.log(JSON.stringify(out));
