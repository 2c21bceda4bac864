/**
 * core_utilisation for a person: the chip's grid as a text heatmap — rows NoC y, columns NoC
 * x, each core's utilisation as a number on a colour where colour is on, beside a shade
 * character where it is not — with a legend, the classes, the histogram as one line of bars,
 * then the notes. A core the log cannot tell is "?", never 0; a coordinate without a Tensix
 * core is "·".
 *
 * @module
 */
import { count, figure, flow, heading, pad, styleOf, type View, withUnit, wrap } from "./text.ts";
import { footer, sentence } from "./beneath.ts";
import type { FieldsOf, Rendered } from "./answer.ts";
import type {
  CoreClasses,
  CoreUtilisationAnswer,
  HistogramBin,
  UtilisationGrid,
} from "../../tools/core_utilisation.ts";

type Cell = UtilisationGrid["rows"][number][number];

/** A utilisation band: its lower bound, how it is drawn, and its legend. */
interface Band {
  from: number;
  label: string;
  /** Without colour: the shade character. */
  glyph: string;
  /** With colour: the ANSI background and foreground. */
  bg: number;
  fg: number;
}

/** The shades drawn without colour, highest first; 0 (idle) is a blank shade. */
const SHADES: readonly Band[] = [
  { from: 75, label: "75 % and up", glyph: "█", bg: 0, fg: 0 },
  { from: 50, label: "50–75 %", glyph: "▓", bg: 0, fg: 0 },
  { from: 25, label: "25–50 %", glyph: "▒", bg: 0, fg: 0 },
  { from: 0, label: "under 25 %", glyph: "░", bg: 0, fg: 0 },
];

/** The colours drawn with colour, highest first: finer, and saturation (95 %) apart. */
const COLOURS: readonly Band[] = [
  { from: 95, label: "95 % and up (saturated)", glyph: "", bg: 45, fg: 97 },
  { from: 80, label: "80–95 %", glyph: "", bg: 41, fg: 97 },
  { from: 60, label: "60–80 %", glyph: "", bg: 43, fg: 30 },
  { from: 40, label: "40–60 %", glyph: "", bg: 42, fg: 30 },
  { from: 20, label: "20–40 %", glyph: "", bg: 46, fg: 30 },
  { from: 0, label: "under 20 %", glyph: "", bg: 44, fg: 97 },
];
const IDLE: Band = { from: 0, label: "idle (0)", glyph: " ", bg: 100, fg: 97 };
const UNKNOWN_COLOUR = { bg: 47, fg: 30 };

function bandOf(p: number, bands: readonly Band[]): Band {
  return p === 0 ? IDLE : bands.find((b) => p >= b.from) ?? bands[bands.length - 1];
}

/** A percent in at most three columns: "<1" above 0 and under 0.5, never 0. */
function percent(p: number): string {
  return p > 0 && p < 0.5 ? "<1" : String(Math.round(p));
}

/**
 * One cell `w` columns wide: with colour, the figure on its band's colour; without, its band's
 * shade then the figure.
 */
export function cellText(cell: Cell, w: number, view: View): string {
  const style = styleOf(view);
  if (cell === null) return style.dim(pad("·", w, "right"));
  // With colour, the cell's first column stays unpainted so neighbouring cells read apart.
  if (cell === "unknown") {
    return view.colour
      ? " " + style.paint(pad("?", w - 1, "right"), UNKNOWN_COLOUR.bg, UNKNOWN_COLOUR.fg)
      : pad("?", w, "right");
  }
  if (view.colour) {
    const band = bandOf(cell, COLOURS);
    return " " + style.paint(pad(percent(cell), w - 1, "right"), band.bg, band.fg);
  }
  const band = bandOf(cell, SHADES);
  if (w < 4) return pad(band.glyph.repeat(w - 1), w, "right");
  return pad(band.glyph + pad(percent(cell), 3, "right"), w, "right");
}

/**
 * The grid as lines: a header of x coordinates, then one line per y.
 *
 * @example
 * ```ts
 * import { heatmap } from "./core_utilisation.ts";
 * const lines = heatmap({ x_from: 1, x_to: 2, y_from: 1, y_to: 1, rows: [[80, "unknown"]] }, {
 *   width: 80,
 *   colour: false,
 * });
 * if (lines[1] !== "y  1  █ 80    ?") throw new Error(JSON.stringify(lines));
 * ```
 */
export function heatmap(grid: Partial<UtilisationGrid>, view: View): string[] {
  const rows = grid.rows ?? [];
  const xFrom = Number(grid.x_from);
  const yFrom = Number(grid.y_from);
  const columns = Math.max(0, ...rows.map((r) => r.length));
  const label = 5;
  // Five columns a cell where they fit, else four, else as many as fit (shade only).
  const w = Math.max(2, Math.min(5, Math.floor((view.width - label) / Math.max(1, columns))));
  const header = "x".padStart(label - 1) + " " +
    Array.from({ length: columns }, (_, i) => pad(String(xFrom + i), w, "right")).join("");
  return [
    styleOf(view).dim(header),
    ...rows.map((r, j) =>
      `y${String(yFrom + j).padStart(3)} ` + r.map((c) => cellText(c, w, view)).join("")
    ),
  ];
}

/** The legend of the heatmap's bands, one entry per band. */
function legend(view: View): string[] {
  const style = styleOf(view);
  if (!view.colour) {
    return [
      ...SHADES.map((b) => `${b.glyph} ${b.label}`),
      "0 idle",
      "? unknown",
      "· no Tensix core",
    ];
  }
  return [
    ...COLOURS.map((b) => `${style.paint("  ", b.bg, b.fg)} ${b.label}`),
    `${style.paint(" 0", IDLE.bg, IDLE.fg)} idle`,
    `${style.paint(" ?", UNKNOWN_COLOUR.bg, UNKNOWN_COLOUR.fg)} unknown`,
    "· no Tensix core",
  ];
}

/** The histogram's bins as one line of bars, 0 % to 100 %. */
function histogram(bins: readonly HistogramBin[]): string {
  const bars = "▁▂▃▄▅▆▇█";
  const most = Math.max(0, ...bins.map((b) => b.cores));
  const line = bins.map((b) => {
    const n = b.cores;
    return n === 0 || most === 0 ? " " : bars[Math.min(7, Math.floor((n / most) * 7.999))];
  }).join("");
  return `0 % │${line}│ 100 %`;
}

/** Renders a core_utilisation answer. */
export function render(answer: Rendered<CoreUtilisationAnswer>, view: View): string[] {
  // An answer may come partial (a test's, a hand-made one): what it lacks reads as unknown.
  const over = answer.mean_utilisation_over ?? {};
  const left = answer.left_out_of_cores_in_log ?? {};
  const lines = heading(
    `Core utilisation on device ${figure(answer.device)}, ${figure(answer.selection)}: ${
      count(answer.operations, "operation")
    } over ${withUnit(answer.interval_us, "µs")} (${figure(answer.interval_is)})`,
    view,
  );
  lines.push(
    ...wrap(
      `Mean ${withUnit(answer.mean_utilisation_percent, "%")} over ${figure(over.cores)} cores (${
        figure(over.unknown_left_out)
      } unknown left out); ${figure(answer.cores_in_log)} Tensix cores in the log, ${
        figure(left.dispatch_cores)
      } dispatch and ${figure(left.ethernet_cores)} ethernet cores left out.`,
      view.width,
      "",
      "  ",
    ),
    "",
  );
  const grid = answer.grid ?? {};
  if ("withheld" in grid) {
    lines.push(...sentence("Grid withheld", grid.withheld, view));
  } else {
    lines.push(...heatmap(grid, view), ...flow(legend(view), view.width, "  "));
  }
  const classes: Partial<CoreClasses> = answer.classes ?? {};
  lines.push(
    "",
    ...sentence(
      "Cores",
      CLASSES.map((n) => `${n.replace("_", " ")} ${figure(classes[n]?.cores)}`).join(", "),
      view,
    ),
  );
  for (const n of EXAMPLED) {
    const examples = classes[n]?.examples ?? [];
    if (examples.length === 0) continue;
    lines.push(
      ...sentence(
        `${n.replace("_", " ")}, e.g.`,
        examples.map((e) =>
          `(${e.x},${e.y})` +
          ("why" in e && e.why ? ` ${figure(e.why)} from row ${figure(e.perf_id)}` : "")
        ).join(", "),
        view,
      ),
    );
  }
  const bins = answer.histogram ?? [];
  if (bins.length > 0) {
    lines.push(...sentence("Histogram", "active and saturated cores in 5 % steps", view));
    lines.push(histogram(bins));
  }
  const workers = answer.worker_cores ?? {};
  const own = sentence(
    "Worker cores",
    `${figure(workers.available_worker_core_count)} available in the CSV; at most ${
      figure(workers.log_max_compute_cores)
    } computing in the log.`,
    view,
  );
  return [...lines, ...footer(answer, SHOWN, view, own)];
}

/** The classes counted on the Cores line, in its order. */
const CLASSES: FieldsOf<CoreClasses> = ["idle", "near_zero", "active", "saturated", "unknown"];

/** The classes whose example cores are named. */
const EXAMPLED: FieldsOf<CoreClasses> = ["idle", "near_zero", "saturated", "unknown"];

/** The answer fields this rendering shows. */
const SHOWN: FieldsOf<CoreUtilisationAnswer> = [
  "handle",
  "device",
  "selection",
  "operations",
  "interval_us",
  "interval_is",
  "cores_in_log",
  "left_out_of_cores_in_log",
  "worker_cores",
  "mean_utilisation_percent",
  "mean_utilisation_over",
  "classes",
  "histogram",
  "grid",
  "projection",
];
