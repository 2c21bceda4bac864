/**
 * Internal: a worker that reads one slice of a device log (`_slice.ts`) and posts its
 * findings back, its typed arrays transferred rather than copied.
 *
 * @module
 */
/// <reference lib="deno.worker" />
import { scanSlice, SliceChanged, type SliceRequest, transferables } from "./_slice.ts";

self.onmessage = async (event: MessageEvent<SliceRequest>) => {
  try {
    const result = await scanSlice(event.data);
    self.postMessage({ ok: true, result }, transferables(result));
  } catch (e) {
    self.postMessage({
      ok: false,
      changed: e instanceof SliceChanged,
      message: e instanceof Error ? e.message : String(e),
    });
  }
};
