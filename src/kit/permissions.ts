/**
 * The one list of Deno permission flags the server runs with — `deno task mcp`, the
 * compiled binaries and the end-to-end tests all use it. Read access (reports can be
 * anywhere the user keeps them; `--root` narrows it in code), HOME (to expand a `~` in a path
 * argument and find the usage-events directory) and USAGE_RECORDING_DISABLED (the opt-out). The npm `yaml` package looks up LOG_STREAM and LOG_TOKENS (debug switches);
 * `--ignore-env` answers those lookups with "unset" instead of granting them. Never write,
 * net, run, ffi, sys or all: a test holds the list to that.
 *
 * @module
 */

/** Flags for `deno run` / `deno compile`, in order. */
export const PERMISSION_FLAGS: readonly string[] = [
  "--no-prompt",
  "--allow-read",
  "--allow-env=HOME,USAGE_RECORDING_DISABLED",
  "--ignore-env=LOG_STREAM,LOG_TOKENS",
];

/** Permission flags the server must never carry. */
export const FORBIDDEN_PERMISSIONS: readonly string[] = [
  "--allow-write",
  "--allow-net",
  "--allow-run",
  "--allow-ffi",
  "--allow-sys",
  "--allow-all",
  "-A",
  "--allow-import",
];
