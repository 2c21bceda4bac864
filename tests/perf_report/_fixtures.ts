/**
 * Test support: the committed synthetic CSVs of `fixtures/perf/`.
 * @module
 */

import { type CsvTable, parseCsvTable } from "../../src/perf_report/csv_table.ts";

/** Where `scripts/make_perf_fixtures.ts` writes. */
export const FIXTURES_URL = new URL("../../fixtures/perf/", import.meta.url);

/** A committed fixture's text. */
export function fixtureText(name: string): string {
  return Deno.readTextFileSync(new URL(name, FIXTURES_URL));
}

/** A committed fixture, parsed. */
export function fixture(name: string): CsvTable {
  return parseCsvTable(fixtureText(name), name);
}

/** A table from inline CSV text. */
export function table(text: string): CsvTable {
  return parseCsvTable(text, "inline.csv");
}
