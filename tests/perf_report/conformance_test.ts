/**
 * Conformance of the port with the real tt-perf-report (6278e268) goldens of every shared
 * capture: every golden file of every `golden-6278e268/` folder has a test here.
 *
 * Arithmetic: the spec says every per-op number, total and stacked statistic is reproducible
 * (Neumaier, Kahan, pairwise and Welford sums), so numbers are compared bit for bit. The one
 * exception is advice.json's `harness_recomputed_unrounded`, the golden harness's own figure,
 * compared within 1e-12 relative.
 */

import assert from "node:assert/strict";
import {
  captureNames,
  CAPTURES_URL,
  capturesPresent,
  GOLDEN_DIR,
  goldenFiles,
  readGolden,
} from "./_golden.ts";
import { checkOpsLike, checkStackedFile } from "./_checks.ts";
import {
  checkAdvice,
  checkConsole,
  checkMeta,
  checkSignposts,
  checkToolCsv,
} from "./_checks_files.ts";

const present = capturesPresent();

if (!present) {
  console.log("skipped: ../shared/captures not found");
  Deno.test({
    name: "conformance with the shared tt-perf-report goldens",
    ignore: true,
    fn() {},
  });
}

function goldenText(capture: string, file: string): string {
  return Deno.readTextFileSync(new URL(`${capture}/${GOLDEN_DIR}/${file}`, CAPTURES_URL));
}

function check(capture: string, file: string): string[] {
  if (file === "console_canonical.txt") {
    const ops = readGolden(capture, "ops.json");
    return checkConsole(capture, goldenText(capture, file), ops.console_total_row?.line ?? null);
  }
  if (file === "ops.tool.csv") {
    const ops = readGolden(capture, "ops.json");
    return checkToolCsv(capture, goldenText(capture, file), ops.columns);
  }
  const golden = readGolden(capture, file);
  if (file === "meta.json") return checkMeta(capture, golden);
  if (file === "signposts.json") return checkSignposts(capture, golden);
  if (file === "advice.json") return checkAdvice(capture, golden);
  if (file.startsWith("stacked_")) return checkStackedFile(capture, golden);
  if (file.startsWith("ops") || file.startsWith("range_")) return checkOpsLike(capture, golden);
  return [`no checker for golden file ${file}`];
}

// The golden files some capture has and another lacks (a capture without signposts has no
// range goldens): each capture's missing ones are reported as a test not run, never passed.
const everyFile = [...new Set(captureNames().flatMap((c) => goldenFiles(c)))].sort();

for (const capture of captureNames()) {
  const held = new Set(goldenFiles(capture));
  const absent = everyFile.filter((f) => !held.has(f));
  if (absent.length > 0) {
    Deno.test({
      name: `${capture}: no ${GOLDEN_DIR}/ golden for ${absent.join(", ")}; not checked`,
      ignore: true,
      fn() {},
    });
  }
  for (const file of goldenFiles(capture)) {
    // Each golden file is one contract: a mismatch in any field of it fails this test.
    Deno.test(`${capture}: the port reproduces ${GOLDEN_DIR}/${file}`, () => {
      const problems = check(capture, file);
      assert.deepEqual(problems, [], problems.slice(0, 20).join("\n"));
    });
  }
}
