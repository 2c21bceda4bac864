/**
 * What a kind of report file is, as its source declares it in its `probe.ts`: its name, what it
 * is, which directory of a load holds it, how the load chooses, probes and identifies it, and
 * how to capture one. `session/report_files.ts` lists every kind once; loading, staleness, the
 * inventory, load_report, the help and the instructions read their names and rules from there.
 *
 * @module
 */
import type { FileIdentity } from "./file_identity.ts";
import type { OpenedFile } from "./report_file.ts";
import type { Progress } from "./progress.ts";

/** The file of a kind a load chose in its directory (not yet opened). */
export interface ChosenFile {
  name: string;
  path: string;
  /** Its identity when choosing stated it (a file picked among several). */
  identity?: FileIdentity;
}

/** How a load probes a file it opened. */
export interface ProbeHow {
  /** The file's name, for messages. */
  name: string;
  /** Whether the load is confined to roots (a database is then read through its descriptor). */
  confined: boolean;
  /** Hears the file's bytes as they are read, for a probe that reads them all. */
  progress?: Progress;
  /** Stops a probe that reads a whole file, at its next slice, once it aborts. */
  signal?: AbortSignal;
}

/**
 * One kind of report file. `Found` is what its probe finds; `Kept` is what the inventory keeps
 * of it under `field` (the probe's finding, unless the kind keeps more than one thing).
 */
export interface ReportFileKind<Found = unknown, Kept = Found> {
  /** Its name in answers and in a tool's `reads` (`device_log`). */
  readonly key: string;
  /** Whether tools read it (a tool's `reads` names it), or load_report alone. */
  readonly readBy: "tools" | "load_report";
  /** The folder under src/ that reads it. */
  readonly source: string;
  /** The load_report argument whose directory holds it. */
  readonly side: "performance" | "profiler";
  /** Its file name as a person reads it; `*` stands for what varies. */
  readonly name: string;
  /** Its name as the command line's help and refusals write it (they spell a varying part `_*`). */
  readonly cliName: string;
  /** What it is, in a few words (`the device log`). */
  readonly title: string;
  /** How a message names one of these files when its name varies (`cluster descriptor`). */
  readonly called: string | null;
  /** What it is, in one sentence. */
  readonly what: string;
  /** How to capture one, for a refusal that has none to read. */
  readonly capture: string;
  /** Files written beside it that nothing reads, named where the directory is described. */
  readonly beside: readonly string[];
  /** Where the inventory's side keeps what was found of it. */
  readonly field: string;
  /** Whether a file of this kind appearing later supersedes the one loaded (the newest wins). */
  readonly newestWins: boolean;
  /** Which file of `dir` a load reads, or null when there is none to read. */
  choose(dir: string): Promise<ChosenFile | null>;
  /** Reads what the load needs from the opened file (it stays open). */
  probe(opened: OpenedFile, how: ProbeHow): Promise<Found>;
  /** What is found of a file that could not be opened, saying why. */
  unusable(identity: FileIdentity, problem: string, how: ProbeHow): Found;
  /** The identity of the bytes read, from what the inventory keeps. */
  identity(kept: Kept): FileIdentity;
}
