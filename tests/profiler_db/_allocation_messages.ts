/**
 * tt-metal's allocation-failure messages as reports store them (l1-and-allocation-facts.md
 * §4.5–4.6): the message framed by a `TT_FATAL`/`TT_THROW` header, `info:` and a backtrace.
 */

/** A message framed as tt-metal stores it in `errors.error_message`. */
export function framed(message: string, header = "bank_manager.cpp:486: false"): string {
  return `TT_FATAL @ /workspace/tt_metal/impl/allocator/${header}\ninfo:\n${message}\n` +
    "backtrace:\n --- /workspace/build_Release/lib/libtt_metal.so(+0x570add) [0x7f0bc96eeadd]\n" +
    " --- /workspace/build_Release/lib/libtt_metal.so(+0x56f1c2) [0x7f0bc96ed1c2]\n";
}

const STATS = (a: number, f: number, l: number) =>
  `(allocated: ${a} B, free: ${f} B, largest free block: ${l} B)`;

/** Example A: the older plain form, "bank size is only", no statistics. */
export const A =
  "Out of Memory: Not enough space to allocate 3276800 B L1 buffer across 4 banks, " +
  "where each bank needs to store 819200 B, but bank size is only 1382720 B";

/** Example B: the current plain form with statistics. */
export const B =
  "Out of Memory: Not enough space to allocate 3276800 B L1 buffer across 4 banks, " +
  `where each bank needs to store 819200 B, but bank size is 1382720 B ${
    STATS(1000000, 382720, 300000)
  }`;

/** The oldest plain form: no bank size at all. */
export const PLAIN_OLDEST = "Out of Memory: Not enough space to allocate 14622720 B DRAM buffer " +
  "across 12 banks, where each bank needs to store 1218560 B";

/** Example C: dependencies with statistics and what stayed placeable. */
export const C = "Out of Memory: Not enough space after considering dependencies to allocate " +
  "2048 B DRAM across 2 banks (1024 B per bank), bank size is 4096 B " +
  `${STATS(3500, 596, 512)}. After subtracting 1 dependency range(s) and 0 additional ` +
  "occupied range(s), 512 B remained placeable across 1 window(s), largest 512 B";

/** Example D: dependencies, a free block that could hold it. */
export const D = "Out of Memory: Not enough space after considering dependencies to allocate " +
  "4096 B DRAM across 2 banks (2048 B per bank), bank size is 8192 B " +
  `${STATS(3072, 5120, 3072)}. After subtracting 2 dependency range(s) and 0 additional ` +
  "occupied range(s), 2048 B remained placeable across 2 window(s), largest 1024 B";

/** Example D's middle generation: the statistics but nothing placeable. */
export const D_MIDDLE = "Out of Memory: Not enough space after considering dependencies to " +
  `allocate 4096 B DRAM across 2 banks (2048 B per bank), bank size is 8192 B ${
    STATS(3072, 5120, 3072)
  }`;

/** The oldest dependency form, as tt-metal's own unit test expects it. */
export const DEPS_OLDEST = "Out of Memory: Not enough space after considering dependencies to " +
  "allocate 1024 B DRAM across 1 banks (1024 B per bank)";

/** Example E: dependencies, fragmented. */
export const E = "Out of Memory: Not enough space after considering dependencies to allocate " +
  "1638400 B DRAM across 2 banks (819200 B per bank), bank size is 1382720 B " +
  `${STATS(382720, 1000000, 300000)}. After subtracting 1 dependency range(s) and 0 ` +
  "additional occupied range(s), 0 B remained placeable across 0 window(s), largest 0 B";

/** Example F: circular buffers clash with an L1 buffer. */
export const F = "Statically allocated circular buffers in program 166 clash with L1 buffers on " +
  "core range [(x=0,y=0) - (x=4,y=7)]. L1 buffer allocated at 600256 and static circular " +
  "buffer region ends at 621824";

/** Example G: circular buffers beyond L1. */
export const G = "Statically allocated circular buffers on core range [(x=0,y=0) - (x=7,y=7)] " +
  "grow to 1600000 B which is beyond max L1 size of 1499136 B";

/** R9: beyond, in the newer core-range spelling. */
export const R9 = "Statically allocated circular buffers on core range [0-0 - 7-9] grow to " +
  "2638592 B which is beyond max L1 size of 1572864 B";

/** R10: clash, in the newer core-range spelling. */
export const R10 = "Statically allocated circular buffers in program 224 clash with L1 buffers " +
  "on core range [0-0 - 7-9]. L1 buffer allocated at 1511424 and static circular buffer " +
  "region ends at 1524480";

/** R2: an L1 request sharded over 48 cores, fragmented. */
export const R2 = "Out of Memory: Not enough space to allocate 26542080 B L1 buffer across 48 " +
  "banks, where each bank needs to store 552960 B, but bank size is 1329888 B " +
  STATS(417792, 912096, 522240);

/** A plain failure with chosen per-bank figures. */
export function plain(type: string, perBank: number, bank: number, free: number, largest: number) {
  return `Out of Memory: Not enough space to allocate ${perBank * 2} B ${type} buffer across 2 ` +
    `banks, where each bank needs to store ${perBank} B, but bank size is ${bank} B ${
      STATS(bank - free, free, largest)
    }`;
}
