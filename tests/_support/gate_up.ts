/**
 * Test support: the users' talk's gate/up projection (p.37, p.44–46) as a performance CSV — 64
 * calls of a Blackhole p150 matmul, M=32, K=4096, N=14336, BFLOAT4_B weights in DRAM,
 * activations in L1, LoFi, DRAM-sharded on 8 cores, 121.85 µs each (7,798.4 µs in all).
 */
import { type Cells, editCsv } from "./csv_edit.ts";

/** The talk's gate/up projection: a BFP4 weight K=4096 × N=14336 in DRAM, activations in L1. */
export function gateUp(r: Cells): void {
  Object.assign(r, {
    "DEVICE ARCH": "blackhole",
    "AVAILABLE WORKER CORE COUNT": "110",
    "MATH FIDELITY": "LoFi",
    "INPUT_0_W_PAD[LOGICAL]": "1[1]",
    "INPUT_0_Z_PAD[LOGICAL]": "1[1]",
    "INPUT_0_Y_PAD[LOGICAL]": "32[32]",
    "INPUT_0_X_PAD[LOGICAL]": "4096[4096]",
    "INPUT_0_MEMORY": "DEV_0_L1_WIDTH_SHARDED",
    "INPUT_1_W_PAD[LOGICAL]": "1[1]",
    "INPUT_1_Z_PAD[LOGICAL]": "1[1]",
    "INPUT_1_Y_PAD[LOGICAL]": "4096[4096]",
    "INPUT_1_X_PAD[LOGICAL]": "14336[14336]",
    "INPUT_1_DATATYPE": "BFLOAT4_B",
    "INPUT_1_LAYOUT": "TILE",
    "INPUT_1_MEMORY": "DEV_0_DRAM_WIDTH_SHARDED",
    "OUTPUT_0_X_PAD[LOGICAL]": "14336[14336]",
    "OUTPUT_0_MEMORY": "DEV_0_L1_WIDTH_SHARDED",
    "DEVICE KERNEL DURATION [ns]": "121850",
  });
}

/** The demo CSV cut to its first matmul, made the talk's gate/up and repeated 64 times. */
export function gateUpCsv(): string {
  let taken = false;
  return editCsv((r) => {
    if (taken || r["OP CODE"] !== "Matmul") return false;
    taken = true;
    gateUp(r);
    return Array.from({ length: 63 }, () => ({ ...r }));
  });
}
