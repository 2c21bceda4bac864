/**
 * The architecture named by rank 0's `cluster_descriptor.yaml`, beside the profiler
 * database. Spellings are kept as written (older descriptors say `Wormhole`, newer ones
 * `wormhole_b0`); chips that differ are joined with commas.
 *
 * @module
 */
import { type FileIdentity, fromInfo } from "../kit/file_identity.ts";

/** What the descriptor says. */
export interface ClusterDescriptor {
  path: string;
  identity: FileIdentity;
  /** The arch mapping's distinct values in chip order, joined with commas; null if absent. */
  arch: string | null;
  problem: string | null;
}

/**
 * Rank 0's descriptor in `dir`: `cluster_descriptor.yaml`, else the lowest-numbered
 * `cluster_descriptor_<n>_of_<world>.yaml`; `null` when there is none.
 */
export async function readClusterDescriptor(dir: string): Promise<ClusterDescriptor | null> {
  const name = await pickDescriptor(dir);
  if (name === null) return null;
  const path = `${dir}/${name}`;
  const info = await Deno.stat(path);
  const out: ClusterDescriptor = {
    path,
    identity: fromInfo(path, info),
    arch: null,
    problem: null,
  };
  try {
    const text = new TextDecoder("utf-8", { fatal: true }).decode(await Deno.readFile(path));
    // Loaded only when a descriptor exists: the parser costs ~15 ms of start-up otherwise.
    const { parse } = await import("yaml");
    out.arch = archOf(parse(text));
    if (out.arch === null) out.problem = `${name} has no arch mapping`;
  } catch (e) {
    out.problem = `${name} cannot be read as YAML: ${(e as Error).message.split("\n")[0]}`;
  }
  return out;
}

async function pickDescriptor(dir: string): Promise<string | null> {
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
