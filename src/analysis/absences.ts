/**
 * What per-bank allocation figures cannot tell you, stated in every answer that carries them
 * rather than left as a gap: a device-wide total, and anything about DRAM capacity.
 *
 * @module
 */

/** The `stated_absences` block of memory_profile and operation_detail. */
export const STATED_ABSENCES = {
  whole_device_figure: "A device-wide total cannot be derived from these figures. Each is bytes " +
    "per bank of its own buffer type, and buffers span different numbers of banks: an " +
    "interleaved buffer uses every bank of its type, a sharded one only the cores of its shard " +
    "grid, so multiplying a per-bank figure by the device's bank count overstates most " +
    "buffers. How many banks each buffer occupies is page-level data no tool exposes.",
  dram_capacity: "The report carries no DRAM capacity, so no DRAM figure here can be read as " +
    "a share of the device's DRAM.",
} as const;

/** What every memory_profile answer says about reading its figures. */
export const FLOOR_NOTE = "These footprints are a floor, not the peak. They come from the " +
  "buffers table, which records the tensors live after each operation: a circular buffer never " +
  "appears there, and neither does a tensor allocated and freed inside one operation, so the " +
  "real L1 peak can be several times higher and held by other operations. For an " +
  "out-of-memory question read errors and l1_peak instead. Figures are bytes per bank " +
  "(size_unit) of each buffer type's own banks, so one type is never added to another; an " +
  "L1 figure is comparable to device.l1_bank_size. A footprint is the largest at any one " +
  "operation, never a sum across the run, and on a multi-device report it is the most loaded " +
  "device's.";
