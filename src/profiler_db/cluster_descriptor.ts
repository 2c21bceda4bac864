/**
 * The architecture named by rank 0's `cluster_descriptor.yaml`, beside the profiler
 * database. Spellings are kept as written (older descriptors say `Wormhole`, newer ones
 * `wormhole_b0`); chips that differ are joined with commas.
 *
 * Only the top-level `arch` entry is parsed as YAML — found by a linear scan, and at most
 * MAX_ARCH_BYTES of it, nested at most MAX_ARCH_DEPTH deep, its aliases bounded — so a huge
 * or hostile descriptor costs a bounded time: the YAML parser's own duplicate-key check is
 * quadratic in a mapping's keys. The file itself is read up to MAX_DESCRIPTOR_BYTES.
 *
 * @module
 */
import type { FileIdentity } from "../kit/file_identity.ts";
import {
  FileTooLarge,
  mib,
  type OpenedFile,
  openReportFile,
  readCapped,
} from "../kit/report_file.ts";
import { Roots } from "../kit/roots.ts";

/** What the descriptor says. */
export interface ClusterDescriptor {
  path: string;
  identity: FileIdentity;
  /** The arch mapping's distinct values in chip order, joined with commas; null if absent. */
  arch: string | null;
  problem: string | null;
}

/** The largest descriptor read (a 64-chip cluster's is about 20 KB). */
export const MAX_DESCRIPTOR_BYTES = 4 << 20;

/** The most text of the `arch` entry parsed (a thousand chips' worth). */
export const MAX_ARCH_BYTES = 32 << 10;

/** The deepest nesting of brackets accepted in the `arch` entry. */
export const MAX_ARCH_DEPTH = 16;

/**
 * Rank 0's descriptor in `dir` (outside `roots`, refused): `cluster_descriptor.yaml`, else the
 * lowest-numbered `cluster_descriptor_<n>_of_<world>.yaml`; `null` when there is none.
 */
export async function readClusterDescriptor(
  dir: string,
  roots = Roots.any(),
): Promise<ClusterDescriptor | null> {
  const name = await pickDescriptor(dir);
  if (name === null) return null;
  const path = `${dir}/${name}`;
  const outcome = await openReportFile(path, name, roots, "profiler_path's cluster descriptor");
  if (outcome.kind === "missing") return null;
  if (outcome.kind === "unusable") {
    return {
      path,
      identity: outcome.identity ??
        { path, size: 0, mtimeMs: null, ctimeMs: null, ino: null, dev: null },
      arch: null,
      problem: outcome.problem,
    };
  }
  try {
    return await readOpenedDescriptor(outcome.opened, name);
  } finally {
    outcome.opened.file.close();
  }
}

/** Reads the descriptor open in `opened` (it stays open). */
export async function readOpenedDescriptor(
  opened: OpenedFile,
  name: string,
): Promise<ClusterDescriptor> {
  const { identity } = opened;
  const out: ClusterDescriptor = { path: identity.path, identity, arch: null, problem: null };
  let bytes: Uint8Array;
  try {
    bytes = await readCapped(opened.file, MAX_DESCRIPTOR_BYTES, name, identity.size);
  } catch (e) {
    out.problem = e instanceof FileTooLarge
      ? `${e.message} (at most ${mib(MAX_DESCRIPTOR_BYTES)}; a real one is a few KB)`
      : `${name} cannot be read: ${(e as Error).message}`;
    return out;
  }
  try {
    const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    const entry = archEntry(text);
    if (typeof entry !== "string") {
      out.problem = entry === null ? `${name} has no arch mapping` : `${name} ${entry.problem}`;
      return out;
    }
    // Loaded only when a descriptor exists: the parser costs ~15 ms of start-up otherwise.
    const { parse } = await import("yaml");
    out.arch = archOf(parse(entry, { uniqueKeys: false, maxAliasCount: 100 }));
    if (out.arch === null) out.problem = `${name} has no arch mapping`;
  } catch (e) {
    out.problem = `${name} cannot be read as YAML: ${(e as Error).message.split("\n")[0]}`;
  }
  return out;
}

/** Rank 0's descriptor's name in `dir`, or null when it has none. */
export async function pickDescriptor(dir: string): Promise<string | null> {
  let best: { name: string; rank: number } | null = null;
  for await (const entry of Deno.readDir(dir)) {
    if (entry.name === "cluster_descriptor.yaml") return entry.name;
    const m = /^cluster_descriptor_(\d+)_of_\d+\.yaml$/.exec(entry.name);
    if (m && (best === null || Number(m[1]) < best.rank)) {
      best = { name: entry.name, rank: Number(m[1]) };
    }
  }
  return best?.name ?? null;
}

/**
 * The text of the document's top-level `arch` entry — its line and the lines that continue it
 * (indented, or inside an open bracket) — or null when there is none, or why it is not read.
 *
 * @example
 * ```ts
 * import { archEntry } from "./cluster_descriptor.ts";
 * const text = "chips: {0: [0, 0]}\narch: {\n  0: Wormhole,\n}\nboards: []\n";
 * if (archEntry(text) !== "arch: {\n  0: Wormhole,\n}") throw new Error();
 * if (archEntry("chips: {}\n") !== null) throw new Error();
 * ```
 */
export function archEntry(text: string): string | null | { problem: string } {
  const start = /^["']?arch["']?[ \t]*:/m.exec(text);
  if (start === null) return null;
  let depth = 0;
  let deepest = 0;
  let end = start.index;
  let quote = "";
  for (let line = start.index; line < text.length;) {
    let nl = text.indexOf("\n", line);
    if (nl < 0) nl = text.length;
    const c = text[line];
    if (line > start.index && depth <= 0 && c !== undefined && !/[\s#]/.test(c) && c !== "\r") {
      break;
    }
    for (let i = line; i < nl; i++) {
      const ch = text[i];
      if (quote !== "") {
        if (ch === quote) quote = "";
      } else if (ch === '"' || ch === "'") quote = ch;
      else if (ch === "#" && (i === line || /\s/.test(text[i - 1]))) break;
      else if (ch === "{" || ch === "[") deepest = Math.max(deepest, ++depth);
      else if (ch === "}" || ch === "]") depth--;
    }
    quote = "";
    end = nl;
    if (end - start.index > MAX_ARCH_BYTES) {
      return { problem: `has an arch entry longer than ${MAX_ARCH_BYTES} bytes; it was not read` };
    }
    if (deepest > MAX_ARCH_DEPTH) {
      return { problem: `nests its arch entry deeper than ${MAX_ARCH_DEPTH}; it was not read` };
    }
    line = nl + 1;
  }
  return text.slice(start.index, end).replace(/\s+$/, "");
}

/**
 * The distinct arch values of a parsed descriptor in chip-id order, joined with commas.
 *
 * @example
 * ```ts
 * import { archOf } from "./cluster_descriptor.ts";
 * if (archOf({ arch: { 0: "Wormhole", 1: "Wormhole" } }) !== "Wormhole") throw new Error();
 * if (archOf({ arch: { 1: "blackhole", 0: "wormhole_b0" } }) !== "wormhole_b0,blackhole") throw new Error();
 * if (archOf({}) !== null) throw new Error();
 * ```
 */
export function archOf(doc: unknown): string | null {
  if (typeof doc !== "object" || doc === null) return null;
  const arch = (doc as { arch?: unknown }).arch;
  if (typeof arch !== "object" || arch === null) return null;
  const entries = Object.entries(arch as Record<string, unknown>)
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([, v]) => String(v));
  const distinct = [...new Set(entries)];
  return distinct.length > 0 ? distinct.join(",") : null;
}
