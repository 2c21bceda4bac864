import assert from "node:assert/strict";
import {
  bytesPerBank,
  type L1Figures,
  paramNumber,
  replayL1,
  type ReplayOperation,
} from "../../src/profiler_db/l1/replay.ts";

// Graph nodes, written as tt-metal writes them (params as strings unless a test says otherwise).
const cb = (address: unknown, size: unknown, globally: unknown = "0") => ({
  node_type: "circular_buffer_allocate",
  params: { address, size, globally_allocated: globally },
});
const freeCbs = { node_type: "circular_buffer_deallocate_all", params: {} };
const alloc = (address: unknown, perBank: unknown, type = "L1") => ({
  node_type: "buffer_allocate",
  params: { address, type, max_size_per_bank: perBank },
});
const free = (address: unknown, type = "L1") => ({
  node_type: "buffer_deallocate",
  params: { address, type },
});
const op = (
  operationId: number,
  nodes: unknown[],
  snapshot: [number, number][] | null = null,
): ReplayOperation => ({
  operationId,
  nodes,
  snapshot: snapshot === null ? null : new Map(snapshot),
});
const basis = (lastUse: [number, number][] = [], bankCount = 64) => ({
  bankCount,
  lastUse: new Map(lastUse),
});
const figures = (
  f: L1Figures,
) => [f.total, f.circularBuffer, f.intermediate, f.persistent, f.stale];

Deno.test("an operation is measured at its tightest instant, not its final state", () => {
  // Prevents reading the L1 left after an operation as what it needed while it ran.
  const r = replayL1([op(1, [alloc(1000, 300), alloc(2000, 200), free(1000)])], basis());
  assert.deepEqual(figures(r.operations[0].figures), [500, 0, 300, 200, 0]);
  assert.equal(r.peak?.operationId, 1);
});

Deno.test("circular buffers add to the tensors live beside them", () => {
  // Prevents a peak that counts tensors or circular buffers but not both at once.
  const r = replayL1([op(1, [alloc(1000, 300), freeCbs, cb(100, 64), cb(164, 36)])], basis());
  assert.deepEqual(figures(r.operations[0].figures), [400, 100, 0, 300, 0]);
});

Deno.test("a globally allocated circular buffer, or one without an address, adds nothing", () => {
  // Prevents counting a view onto an L1 tensor that is already counted.
  for (const globally of ["1", 1, true]) {
    const r = replayL1([op(1, [cb(100, 64), cb(200, 5000, globally), cb(null, 9000)])], basis());
    assert.equal(r.operations[0].figures.total, 64, String(globally));
  }
});

Deno.test("deallocate-all frees circular buffers only, and none carry into the next operation", () => {
  // Prevents a finished program's circular buffers counting against the next operation.
  const r = replayL1([
    op(1, [alloc(1000, 300), cb(100, 64), freeCbs, cb(100, 32)]),
    op(2, []),
  ], basis());
  assert.deepEqual(figures(r.operations[0].figures), [364, 64, 0, 300, 0]);
  assert.deepEqual(figures(r.operations[1].figures), [300, 0, 0, 300, 0]);
});

Deno.test("the snapshot drops a graph allocation it does not hold, and counts it", () => {
  // Prevents a buffer the capture never freed in its graph living on for the rest of the run.
  const r = replayL1([
    op(1, [alloc(1000, 300), alloc(2000, 200)], [[2000, 200]]),
    op(2, []),
  ], basis());
  assert.equal(r.operations[0].reconciledAway, 1);
  assert.equal(r.operations[1].figures.total, 200);
});

Deno.test("an operation with no snapshot is not captured, not empty", () => {
  // Prevents an operation without buffers rows erasing every tensor live through it.
  const r = replayL1([op(1, [alloc(1000, 300)], null), op(2, [])], basis());
  assert.equal(r.operations[0].reconciledAway, 0);
  assert.equal(r.operations[1].figures.total, 300);
});

Deno.test("survivors the graph never showed are seeded from the snapshot, at its size", () => {
  // Prevents tensors allocated before the capture (weights) missing from the peak, and a
  // graph size overriding the snapshot's.
  const r = replayL1([
    op(1, [alloc(1000, 100)], [[1000, 160], [3000, 650]]),
    op(2, [cb(100, 10)]),
  ], basis());
  assert.deepEqual(figures(r.operations[0].figures), [810, 0, 0, 810, 0]);
  assert.deepEqual(figures(r.operations[1].figures), [820, 10, 0, 810, 0]);
});

Deno.test("the reconciled state wins only when strictly larger", () => {
  // Prevents a tie moving an operation's instant from its graph to its snapshot.
  const r = replayL1([op(1, [cb(100, 100)], [[1000, 100]])], basis());
  assert.deepEqual(figures(r.operations[0].figures), [100, 100, 0, 0, 0]);
});

Deno.test("a tensor freed by the operation that allocated it is intermediate, and beats stale", () => {
  // Prevents intra-operation tensors reading as persistent, or as stale when their address
  // has a past last use.
  const r = replayL1([op(5, [alloc(1000, 300), free(1000)])], basis([[1000, 2]]));
  assert.deepEqual(figures(r.operations[0].figures), [300, 0, 300, 0, 0]);
});

Deno.test("a tensor freed by a later operation is not intermediate", () => {
  // Prevents marking by address alone, across operations.
  const r = replayL1([op(1, [alloc(1000, 300)]), op(2, [free(1000)])], basis());
  assert.deepEqual(figures(r.operations[0].figures), [300, 0, 0, 300, 0]);
  assert.deepEqual(figures(r.operations[1].figures), [300, 0, 0, 300, 0]);
});

Deno.test("a reallocation after a free is not intermediate unless it is freed too", () => {
  // Prevents one occurrence's free marking every allocation at that address.
  const kept = replayL1(
    [op(1, [alloc(1000, 300), free(1000), cb(100, 1), alloc(1000, 300)])],
    basis(),
  );
  assert.equal(kept.operations[0].figures.intermediate, 0);
  assert.equal(kept.operations[0].figures.persistent, 300);
  const both = replayL1([
    op(1, [alloc(1000, 300), free(1000), cb(100, 1), alloc(1000, 300), free(1000), cb(101, 1)]),
  ], basis());
  assert.deepEqual(figures(both.operations[0].figures), [301, 1, 300, 0, 0]);
});

Deno.test("a tensor past its last real consumer is stale; at it, persistent", () => {
  // Prevents stale tensors — the part freeing earlier would help — hiding among persistent.
  const r = replayL1([op(3, [cb(1, 1)], [[1000, 300]]), op(4, []), op(5, [])], basis([[1000, 4]]));
  assert.equal(r.operations[1].figures.persistent, 300);
  assert.equal(r.operations[2].figures.stale, 300);
  assert.equal(r.peak?.contributors.find((c) => c.address === 1000)?.lastUsedBy, 4);
});

Deno.test("a last use of -1 is no last use", () => {
  // Prevents a never-consumed tensor reading as stale from the first operation on.
  const r = replayL1([op(1, [], [[1000, 300]]), op(2, [])], basis([[1000, -1]]));
  assert.equal(r.operations[1].figures.stale, 0);
  assert.equal(r.peak?.contributors[0].lastUsedBy, null);
});

Deno.test("the entry state is measured, so an operation that starts by freeing keeps what it inherited", () => {
  // Prevents a free as an operation's first node hiding the L1 it started with.
  const r = replayL1([op(1, [], [[1000, 300]]), op(2, [free(1000)], [])], basis());
  assert.equal(r.operations[1].figures.total, 300);
});

Deno.test("precision is exact only for one resident", () => {
  // Prevents two residents summed as if they shared one core.
  const one = replayL1([op(1, [cb(100, 64)])], basis());
  assert.equal(one.operations[0].figures.residents, 1);
  const two = replayL1([op(1, [cb(100, 64), alloc(1000, 1)])], basis());
  assert.equal(two.operations[0].figures.residents, 2);
});

Deno.test("L1_SMALL counts and DRAM does not", () => {
  // Prevents DRAM buffers in an L1 figure, or the L1_SMALL region left out of it.
  const r = replayL1([
    op(1, [alloc(1000, 300, "L1_SMALL"), alloc(2000, 99999, "DRAM"), free(1000, "DRAM")]),
  ], basis());
  assert.equal(r.operations[0].figures.total, 300);
});

Deno.test("a buffer without max_size_per_bank is its size over its cores, or over the banks", () => {
  // Prevents a whole-buffer size read as bytes per bank (216x a bank on one capture).
  assert.equal(bytesPerBank({ size: "6400", num_cores: "4" }, 64), 1600);
  assert.equal(bytesPerBank({ size: 6400, num_cores: 0 }, 64), 100);
  assert.equal(bytesPerBank({ size: "6400", num_cores: "0" }, 128), 50);
  assert.equal(bytesPerBank({ size: 12000, num_cores: 0 }, 64), 187.5);
  assert.equal(bytesPerBank({ size: 12000 }, 120), 100);
  assert.equal(bytesPerBank({ size: 12000, max_size_per_bank: "7" }, 120), 7);
  assert.equal(bytesPerBank({}, 64), null);
});

Deno.test("params are read as strings or numbers, and a null address is no address", () => {
  // Prevents the newest capture's numbers, or a null deallocation address, being misread.
  assert.equal(paramNumber("1920032"), 1920032);
  assert.equal(paramNumber(1920032), 1920032);
  for (const v of [null, undefined, "", "abc", {}, NaN]) assert.equal(paramNumber(v), null);
  const r = replayL1([
    op(1, [alloc("1000", "300"), free(null), free(undefined), alloc(2000, 100)]),
  ], basis());
  assert.deepEqual(figures(r.operations[0].figures), [400, 0, 0, 400, 0]);
});

Deno.test("null params, non-object nodes and device ids are tolerated", () => {
  // Prevents a capture_start with null params, or a node labelled with another device,
  // failing or splitting the replay.
  const r = replayL1([
    op(1, [
      { node_type: "capture_start", params: null },
      null,
      "text",
      {
        node_type: "buffer_allocate",
        params: { address: 1000, type: "L1", max_size_per_bank: 5, device_id: 1 },
      },
      { node_type: "buffer_deallocate", params: { address: 1000, type: "L1", device_id: 0 } },
      { node_type: "capture_end" },
    ]),
  ], basis());
  assert.deepEqual(figures(r.operations[0].figures), [5, 0, 5, 0, 0]);
});

Deno.test("the peak is the first operation reaching the highest figure", () => {
  // Prevents a later tie moving the peak, or a peak reported for a run with no L1.
  const r = replayL1([op(1, [cb(1, 10)]), op(2, [cb(1, 50)]), op(3, [cb(1, 50)])], basis());
  assert.equal(r.peak?.operationId, 2);
  const none = replayL1([op(1, []), op(2, [alloc(1, 9, "DRAM")])], basis());
  assert.equal(none.peak, null);
  assert.equal(none.operations.length, 2);
});

Deno.test("the peak's contributors are its residents, largest first", () => {
  // Prevents naming residents from another instant than the one measured.
  const r = replayL1([
    op(7, [alloc(3000, 50), cb(100, 200), alloc(1000, 300), free(1000), cb(100, 10)]),
  ], basis());
  assert.deepEqual(
    r.peak?.contributors.map((c) => [c.kind, c.address, c.bytes]),
    [["intermediate_tensor", 1000, 300], ["circular_buffer", 100, 200], [
      "persistent_tensor",
      3000,
      50,
    ]],
  );
});

Deno.test("a snapshot given as the buffers table's pairs replays as the same snapshot in a Map", () => {
  // Prevents reading a snapshot in place (no Map per operation) changing which tensors are
  // reconciled away, their order, or an address on several devices' size.
  let seed = 11;
  const random = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
  const addresses = [0, -0, 100, 200, 300, NaN, 1.5, 400];
  for (let round = 0; round < 300; round++) {
    const ops: ReplayOperation[] = [];
    const pairsOf: (number[] | null)[] = [];
    for (let id = 1; id <= 6; id++) {
      const nodes = Array.from({ length: random(5) }, () => {
        const address = addresses[random(addresses.length)];
        return random(3) === 0 ? free(address) : alloc(address, 1 + random(50));
      });
      const pairs = random(5) === 0 ? null : Array.from(
        { length: 2 * (random(20) === 0 ? 20 + random(10) : random(6)) },
        (_, i) => i % 2 === 0 ? addresses[random(addresses.length)] : random(3) * 7.5,
      );
      pairsOf.push(pairs);
      const map = pairs === null ? null : new Map<number, number>();
      for (let i = 0; pairs !== null && i < pairs.length; i += 2) {
        map!.set(pairs[i], Math.max(pairs[i + 1], map!.get(pairs[i]) ?? -Infinity));
      }
      ops.push(op(id, nodes, map === null ? null : [...map]));
    }
    const b = basis([[100, 2], [300, 9]]);
    const expected = replayL1(ops, b);
    const got = replayL1(
      ops.map((o, i) => ({ ...o, snapshot: undefined, snapshotPairs: pairsOf[i] })),
      b,
    );
    assert.deepEqual(got, expected, `round ${round}`);
  }
});

Deno.test("intermediates found in place among a few events are the ones the Maps find", () => {
  // Prevents the in-place search an operation of few events takes numbering occurrences
  // otherwise than for a long one: allocations with no size count for intermediates but are
  // not replayed, and a free marks only the latest allocation still live at its address.
  let seed = 5;
  const random = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
  const unsized = (address: number) => ({
    node_type: "buffer_allocate",
    params: { address, type: "L1" },
  });
  const padding = Array.from({ length: 70 }, () => freeCbs);
  for (let round = 0; round < 500; round++) {
    const nodes = Array.from({ length: 2 + random(12) }, () => {
      const address = [0, -0, 100, 200][random(4)];
      const what = random(7);
      return what < 3
        ? alloc(address, 1 + random(40))
        : what < 5
        ? free(address)
        : unsized(address);
    });
    const snapshot: [number, number][] | null = random(2) ? [[100, 9]] : null;
    const few = replayL1([op(1, nodes, snapshot), op(2, nodes)], basis([[200, 1]]));
    const many = replayL1(
      [op(1, [...nodes, ...padding], snapshot), op(2, [...nodes, ...padding])],
      basis([[200, 1]]),
    );
    assert.deepEqual(few, many, JSON.stringify(nodes));
  }
});
