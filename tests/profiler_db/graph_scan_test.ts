/**
 * The captured-graph scanner against `JSON.parse`: l1_peak reads each graph's text in place
 * (`_graph_scan.ts`, through `_graph_chunks.ts`) where it once parsed it, and must read every
 * text — every fixture's, and generated edge cases — exactly as the parsing reader did: the
 * same verdict (a list, JSON of another shape, not JSON, blank), the same events, the same
 * count of characters.
 */
import assert from "node:assert/strict";
import { DatabaseSync, type StatementSync } from "node:sqlite";
import { PROFILER_FIXTURES } from "./_fixtures.ts";
import {
  BLANK,
  chunkSql,
  type GraphChunk,
  INVALID,
  LIST,
  NOT_A_LIST,
  readChunk,
} from "../../src/profiler_db/l1/_graph_chunks.ts";
import { nodeEvents } from "../../src/profiler_db/l1/_l1_events.ts";

/** One row as the parsing reader read it. */
interface Reading {
  id: number;
  verdict: number;
  chars: number;
  events: number[];
}

/** Every row as the row-by-row reader reads it: text from the driver, then `JSON.parse`. */
function parsed(db: DatabaseSync, bankCount: number): Reading[] {
  const out: Reading[] = [];
  const sql = "SELECT operation_id AS id, CAST(captured_graph AS TEXT) AS g FROM captured_graph " +
    "WHERE operation_id IS NOT NULL ORDER BY rowid";
  for (const r of db.prepare(sql).all()) {
    const text = (r.g as string | null) ?? "";
    let verdict = BLANK;
    let events: number[] = [];
    if (text.trim() !== "") {
      try {
        const value = JSON.parse(text);
        verdict = Array.isArray(value) ? LIST : NOT_A_LIST;
        if (Array.isArray(value)) events = nodeEvents(value, bankCount);
      } catch {
        verdict = INVALID;
      }
    }
    out.push({ id: Number(r.id), verdict, chars: text.length, events });
  }
  return out;
}

/** Every row as the chunk reader reads it (ranges of `rows` rowids), or "rows". */
function scanned(
  db: DatabaseSync,
  bankCount: number,
  rows = 7,
  maxBytes?: number,
): Reading[] | "rows" {
  const statements = new Map<string, StatementSync>();
  const get = (query: string, from: number, to: number) => {
    let s = statements.get(query);
    if (s === undefined) statements.set(query, s = db.prepare(query));
    return s.get(from, to) as Record<string, unknown> | undefined;
  };
  const bounds = db.prepare("SELECT min(rowid) AS lo, max(rowid) AS hi FROM captured_graph")
    .get() as { lo: number | null; hi: number | null };
  const out: Reading[] = [];
  if (bounds.lo === null || bounds.hi === null) return out;
  for (let from = bounds.lo; from <= bounds.hi; from += rows) {
    const chunk = readChunk(get, chunkSql(""), { from, to: from + rows }, bankCount, maxBytes);
    if (chunk === "rows") return "rows";
    out.push(...readings(chunk));
  }
  return out;
}

function readings(chunk: GraphChunk): Reading[] {
  return [...chunk.ids].map((id, i) => ({
    id,
    verdict: chunk.verdicts[i],
    chars: chunk.chars[i],
    events: [...chunk.events.subarray(i === 0 ? 0 : chunk.ends[i - 1], chunk.ends[i])],
  }));
}

/** A database holding these graphs (text, or a SQL expression when `sql`), ids 1, 2, … */
function graphs(texts: readonly (string | { sql: string })[]): DatabaseSync {
  const db = new DatabaseSync(":memory:");
  db.exec("CREATE TABLE captured_graph (operation_id int, captured_graph text)");
  const insert = db.prepare("INSERT INTO captured_graph VALUES (?, ?)");
  texts.forEach((t, i) => {
    if (typeof t === "string") insert.run(i + 1, t);
    else db.exec(`INSERT INTO captured_graph VALUES (${i + 1}, ${t.sql})`);
  });
  return db;
}

/** Asserts that both readers read `db` alike (NaN events compared as NaN). */
function agree(db: DatabaseSync, label: string, bankCount = 64): void {
  const expected = parsed(db, bankCount);
  for (const rows of [1, 7, 1000]) {
    const got = scanned(db, bankCount, rows);
    assert.notEqual(got, "rows", `${label}: read by ranges`);
    assert.deepEqual(got, expected, label);
  }
}

const node = (node_type: unknown, params: unknown) => ({ node_type, params });
const sample = JSON.stringify([
  node("capture_start", null),
  node("circular_buffer_deallocate_all", { device_id: "0" }),
  node("circular_buffer_allocate", {
    address: "103712",
    size: "16384",
    core_range_set: "{[(x=0,y=0) - (x=7,y=7)]}",
    globally_allocated: "0",
  }),
  node("buffer_allocate", {
    address: "1200000",
    size: "655360",
    type: "L1",
    num_cores: "0",
    max_size_per_bank: "10240",
  }),
  node("buffer_allocate", { address: 1300000, size: 409600, type: "L1_SMALL", num_cores: 8 }),
  node("buffer_deallocate", { address: "1200000", type: "L1" }),
  node("buffer_deallocate", { address: null, type: "L1" }),
  node("buffer_allocate", { address: "1960992", size: "24576", type: "DRAM" }),
  { counter: 9, node_type: "tensor", params: { tensor_id: "3", shape: "Shape([1, 1])" } },
  node("capture_end", {}),
]);

for (const name of Deno.readDirSync(PROFILER_FIXTURES)) {
  if (!name.isDirectory) continue;
  Deno.test(`every graph of ${name.name} is read as JSON.parse reads it`, () => {
    // Prevents the scanner reading a real capture's graph other than the parser did.
    const db = new DatabaseSync(`${PROFILER_FIXTURES}${name.name}/db.sqlite`, { readOnly: true });
    try {
      const has = db.prepare(
        "SELECT 1 FROM sqlite_master WHERE name = 'captured_graph' AND type = 'table'",
      ).get();
      if (has === undefined) return;
      for (const banks of [64, 120]) agree(db, name.name, banks);
    } finally {
      db.close();
    }
  });
}

Deno.test("escaped keys and strings are decoded as JSON.parse decodes them", () => {
  // Prevents an escaped "node\u005ftype", an "L\u0031" type or a "\u0031\u0030" address being
  // missed, or an escape inside a skipped string ending it early.
  agree(
    graphs([
      sample,
      '[{"node\\u005ftype": "circular_buffer_allocate", "params": {"address": "1", "size": "2"}}]',
      '[{"node_type": "buffer_allocate", "params": {"addr\\u0065ss": "\\u0031\\u0030", ' +
      '"type": "L\\u0031", "max_size_per_bank": "7"}}]',
      '[{"node_type": "buffer\\u005fallocate", "params": {"address": 5, "type": "L1_SMALL", ' +
      '"size": "64"}}]',
      '[{"node_type": "tensor", "params": {"shape": "a \\"quoted\\" \\\\ \\/ \\b\\f\\n\\r\\t"}}]',
      '[{"node_type": "circular_buffer_allocate", "params": {"address": "1", "size": "2", ' +
      '"globally_allocated": "\\u0031"}}]',
      '[{"node_type": "buffer_allocate", "params": {"address": "\\ud83d\\ude00", "type": "L1"}}]',
      '[{"node_type": "tensor", "params": {"name": "\\ud800 lone \\udfff"}}]',
    ]),
    "escapes",
  );
});

Deno.test("text past ASCII, invalid UTF-8, a NUL and a byte-order mark read as the driver hands them", () => {
  // Prevents characters being miscounted against the bound, or bytes the driver replaces or
  // cuts at being read as something else.
  agree(
    graphs([
      '[{"node_type": "tensor", "params": {"name": "naïve — 日本 😀"}}, ' +
      '{"node_type": "circular_buffer_allocate", "params": {"address": "9", "size": "3"}}]',
      '[{"node_type": "buffer_allocate", "params": {"address": "１２", "type": "L1"}}]',
      '[{"node_type": "buffer_allocate", "params": {"address": "\u00a012\u00a0", "type": "L1", ' +
      '"size": " 640 "}}]',
      { sql: "CAST(x'5b7b226e6f6465223a2022c328e282ac80f09f9880227d5d' AS TEXT)" },
      { sql: "CAST(x'5b22c3' AS TEXT)" },
      { sql: "CAST(x'5b315d007878' AS TEXT)" },
      { sql: "CAST(x'5b22610062225d' AS TEXT)" },
      { sql: "CAST(x'efbbbf5b5d' AS TEXT)" },
      { sql: "CAST(x'5b5def' AS TEXT)" },
      { sql: "CAST(x'5b7b226e6f64655f74797065223a22c3a9227d5d' AS TEXT)" },
    ]),
    "unicode",
  );
});

Deno.test("params as strings or numbers, in every form, read as the parsing reader reads them", () => {
  // Prevents a number written another way ("1e3", "0x10", " 12 ", -0, 16 digits) or a
  // non-number being read to another value than Number reads.
  const values: unknown[] = [
    "12",
    "0012",
    "  12 ",
    "1e3",
    "0x10",
    "0b11",
    "1_000",
    "+5",
    "-5",
    ".5",
    "5.",
    "",
    " ",
    "Infinity",
    "-Infinity",
    "NaN",
    "123456789012345",
    "1234567890123456",
    "12345678901234567890",
    "1.5",
    "abc",
    12,
    -0,
    1.5,
    1e300,
    123456789012345680000,
    0,
    null,
    true,
    false,
    [],
    {},
    [1],
  ];
  const texts = values.flatMap((v) => [
    JSON.stringify([node("buffer_allocate", { address: v, type: "L1", max_size_per_bank: v })]),
    JSON.stringify([node("buffer_allocate", { address: 7, type: "L1", size: v, num_cores: v })]),
    JSON.stringify([
      node("circular_buffer_allocate", { address: v, size: 3, globally_allocated: v }),
    ]),
    JSON.stringify([node("buffer_deallocate", { address: v, type: v })]),
    JSON.stringify([node(v, { address: 1, size: 2 })]),
  ]);
  texts.push(
    '[{"node_type": "buffer_allocate", "params": {"address": 1E2, "type": "L1", "size": -1.5e-3}}]',
    '[{"node_type": "circular_buffer_allocate", "params": {"address": 1, "size": 2, ' +
      '"globally_allocated": 1.0}}]',
    '[{"node_type": "circular_buffer_allocate", "params": {"address": 1, "size": 2, ' +
      '"globally_allocated": 10e-1}}]',
    '[{"node_type": "circular_buffer_allocate", "params": {"address": 1, "size": 2, ' +
      '"globally_allocated": "true"}}]',
  );
  for (const banks of [64, 120, 7]) agree(graphs(texts), "params", banks);
});

Deno.test("repeated keys, odd params and odd nodes read as JSON.parse leaves them", () => {
  // Prevents the first of a repeated key winning, params that are not an object being read,
  // or a node's type read before a later key changes it.
  agree(
    graphs([
      '[{"node_type": "tensor", "params": {"address": 1, "size": 2}, ' +
      '"node_type": "circular_buffer_allocate"}]',
      '[{"params": {"address": 1, "size": 2}, "node_type": "circular_buffer_allocate"}]',
      '[{"node_type": "circular_buffer_allocate", "params": {"address": 1, "size": 2}, ' +
      '"params": null}]',
      '[{"node_type": "circular_buffer_allocate", "params": {"address": 1}, ' +
      '"params": {"size": 2}}]',
      '[{"node_type": "circular_buffer_allocate", "params": {"address": 1, "size": 2, ' +
      '"size": "9"}}]',
      '[{"node_type": "buffer_allocate", "params": "address"}]',
      '[{"node_type": "buffer_allocate", "params": [1, 2]}]',
      '[{"node_type": ["buffer_allocate"], "params": {"address": 1, "type": "L1"}}]',
      '[{"node_type": "buffer_allocate", "node_type": 5, "params": {"address": 1, "type": "L1"}}]',
      '[{"node_type": "buffer_allocate", "params": {"address": 1, "type": "L1", ' +
      '"nested": {"address": 2, "type": "DRAM", "deeper": [[[{"size": 1}]]]}}}]',
      '[null, 1, "x", true, [], [{"node_type": "circular_buffer_allocate"}], {}]',
      '[{"__proto__": {"node_type": "x"}, "node_type": "circular_buffer_deallocate_all"}]',
      '[{"NODE_TYPE": "circular_buffer_deallocate_all"}, {"node_type ": "x"}]',
      '[{"node_type": "circular_buffer_deallocate_all", "params": {}}]',
      '[{"node_type": "buffer_allocate", "params": {"address": 1, "type": "L1", "size": 64}, ' +
      '"node_type": "buffer_deallocate"}]',
      '[{"node_type": "buffer_allocate", "params": {"address": 1, "type": "L1", "size": 64}, ' +
      '"node_type": "tensor", "params": {"address": 2, "size": 3}, ' +
      '"node_type": "circular_buffer_allocate"}]',
      '[{"node_type": "circular_buffer_allocate", "params": {"address": 1, "size": 2}, ' +
      '"node_type": "tensor"}, {"node_type": "tensor", "params": {"address": 3, "size": 4}, ' +
      '"params": 5, "node_type": "circular_buffer_allocate"}]',
      '[{"node_type": "x", "params": {"address": 1, "size": 2}, "params": {"address": 7}, ' +
      '"node_type": "circular_buffer_allocate"}]',
      sample + " ",
    ]),
    "keys",
  );
});

Deno.test("whitespace, nesting and every top-level value read as JSON.parse reads them", () => {
  // Prevents JavaScript's whitespace being taken for JSON's, a deep graph overflowing, or a
  // value that is not a list being read as nodes.
  const deep = "[".repeat(100_000) + "]".repeat(100_000);
  agree(
    graphs([
      ` \t\r\n${sample}\n\t `,
      sample.replaceAll(",", " ,\n\t").replaceAll(":", "\r: "),
      `[${deep}]`,
      `[{"node_type": "tensor", "params": {"x": ${deep}}}]`,
      "\u000b[]",
      "\f[]",
      "\u00a0[]",
      "[]\u2028",
      '{"nodes": []}',
      '"[]"',
      "5",
      "true",
      "null",
      "[] []",
      "",
      "   ",
      "\t\r\n",
      "\u00a0\u2028\ufeff",
      { sql: "NULL" },
      { sql: "5" },
      { sql: "1.5" },
      { sql: "x'5b5d'" },
      { sql: "x'5b7b7d5d'" },
    ]),
    "shapes",
  );
});

Deno.test("invalid and truncated JSON is refused where JSON.parse refuses it", () => {
  // Prevents a truncated capture, or a token JSON does not have, being read as nodes.
  const bad = [
    "[1,]",
    "[,1]",
    "[1 2]",
    '[{"a" 1}]',
    '[{"a": 1,}]',
    "[{1: 2}]",
    "[01]",
    "[1.]",
    "[.5]",
    "[+1]",
    "[-]",
    "[1e]",
    "[1e+]",
    "[-01]",
    "[tru]",
    "[nul]",
    "[True]",
    "[NaN]",
    "[Infinity]",
    "['a']",
    '["\\x41"]',
    '["\\u12"]',
    '["\\u12G4"]',
    '["a\tb"]',
    '["a\nb"]',
    "[/* c */]",
    "[1]]",
    "[[1]",
    '[{"a": 1]',
    '[{"a": [1}]',
  ];
  const prefixes = Array.from({ length: sample.length }, (_, i) => sample.slice(0, i));
  agree(graphs([...bad, ...prefixes]), "invalid");
});

Deno.test("randomly damaged graphs are read as JSON.parse reads them", () => {
  // Prevents any fault a byte can make being read another way than the parser reads it.
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const alphabet = ' \t\n"\\{}[],:0123456789.-+eEtrufalsn_abcxyzL1\u00e9\u0000';
  const texts: string[] = [];
  for (let k = 0; k < 3000; k++) {
    const chars = [...sample];
    for (let n = 1 + Math.floor(random() * 3); n > 0; n--) {
      const at = Math.floor(random() * chars.length);
      const c = alphabet[Math.floor(random() * alphabet.length)];
      const what = random();
      if (what < 0.4) chars[at] = c;
      else if (what < 0.7) chars.splice(at, 0, c);
      else chars.splice(at, 1);
    }
    texts.push(chars.join(""));
  }
  agree(graphs(texts), "damaged");
});

Deno.test("texts larger than one query's bound come in several queries, read alike", () => {
  // Prevents the memory bound on one query's texts losing, doubling or splitting a row.
  const db = graphs([sample, sample.repeat(1), "[]", sample, "{}", sample]);
  const expected = parsed(db, 64);
  for (const bound of [1, 100, sample.length, sample.length + 1, 10 * sample.length]) {
    assert.deepEqual(scanned(db, 64, 1000, bound), expected, `bound ${bound}`);
  }
});

Deno.test("ids the driver would hand over otherwise are left to the row-by-row reader", () => {
  // Prevents an id JSON cannot carry as the driver does (a REAL it may round, a BLOB SQLite's
  // JSON functions read as JSON, an integer past 2^53) being read as another operation's.
  for (const id of ["2.5", "1e300", "9007199254740993", "x'01'", "x'13'"]) {
    const db = graphs([sample]);
    db.exec(`UPDATE captured_graph SET operation_id = ${id}`);
    assert.equal(scanned(db, 64), "rows", id);
  }
  for (const id of ["' 7 '", "'x'", "1234567890123456", "-3", "2.0", "-0.0"]) {
    const db = graphs([sample]);
    db.exec(`UPDATE captured_graph SET operation_id = ${id}`);
    assert.deepEqual(scanned(db, 64), parsed(db, 64), id);
  }
});
