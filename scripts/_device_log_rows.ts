/**
 * Internal to the device-log generator: the header variants tt-metal has written (names as
 * `device-log-format.md` §3 lists them) and a row formatter for each.
 *
 * @module
 */

/** v2: pre-rename 13 columns with `zone phase`; v3: 13 with `type`; v4: today's 15; v5: 17. */
export type HeaderVariant = "v2" | "v3" | "v4" | "v5";

const HEAD = [
  "PCIe slot",
  "core_x",
  "core_y",
  "RISC processor type",
  "timer_id",
  "time[cycles since reset]",
];

/** tt-metal's current 15 columns. */
const V4 = [
  ...HEAD,
  "data",
  "run host ID",
  "trace id",
  "trace id counter",
  "zone name",
  "type",
  "source line",
  "source file",
  "meta data",
];

/** Each variant's column names, in order. */
export const HEADERS: Record<HeaderVariant, string[]> = {
  v2: [
    ...HEAD,
    "stat value",
    "run ID",
    "run host ID",
    " zone name", // one legacy writer put two spaces before it
    "zone phase",
    "source line",
    "source file",
  ],
  v3: [
    ...HEAD,
    "data",
    "run host ID",
    "zone name",
    "type",
    "source line",
    "source file",
    "meta data",
  ],
  v4: V4,
  // v4 and the two logical-coordinate columns some third-party writers add.
  v5: [...V4, "logical_x", "logical_y"],
};

/** Formats one row of a variant. */
export type RowFormatter = (
  slot: number,
  x: number,
  y: number,
  risc: string,
  timer: number,
  time: number,
  run: number,
  trace: [string, string],
  zone: string,
  start: boolean,
  meta: string,
) => string;

/** The row formatter of `variant`, with or without the boundary column. */
export function formatLogRow(variant: HeaderVariant, phase: boolean, sep: string): RowFormatter {
  const source = `${sep}10${sep}firmware.cc`;
  if (variant === "v2") {
    return (slot, x, y, risc, timer, time, run, _trace, zone, start) =>
      `${slot}${sep}${x}${sep}${y}${sep}${risc}${sep}${timer}${sep}${time}${sep}0${sep}${run}${sep}${run}${sep}${zone}${
        phase ? `${sep}${start ? "begin" : "end"}` : ""
      }${source}`;
  }
  const type = (start: boolean) => (phase ? `${sep}${start ? "ZONE_START" : "ZONE_END"}` : "");
  if (variant === "v3") {
    return (slot, x, y, risc, timer, time, run, _trace, zone, start, meta) =>
      `${slot}${sep}${x}${sep}${y}${sep}${risc}${sep}${timer}${sep}${time}${sep}0${sep}${run}${sep}${zone}${
        type(start)
      }${source}${sep}${meta}`;
  }
  const logical = variant === "v5";
  return (slot, x, y, risc, timer, time, run, trace, zone, start, meta) =>
    `${slot}${sep}${x}${sep}${y}${sep}${risc}${sep}${timer}${sep}${time}${sep}0${sep}${run}${sep}${
      trace[0]
    }${sep}${trace[1]}${sep}${zone}${type(start)}${source}${sep}${meta}${
      logical ? `${sep}${x - 1}${sep}${y - 1}` : ""
    }`;
}
