/**
 * Internal: a worker that reads one slice of a device log (`_slice.ts`) and posts its
 * findings back, its typed arrays transferred rather than copied; while it reads, it posts the
 * bytes read so far after every buffer.
 *
 * @module
 */
/// <reference lib="deno.worker" />
import {
  scanSlice,
  SliceChanged,
  type SliceMessage,
  SliceNotUtf8,
  type SliceRequest,
  transferables,
} from "./_slice.ts";

const post = (m: SliceMessage, transfer: ArrayBuffer[] = []) => self.postMessage(m, transfer);

self.onmessage = async (event: MessageEvent<SliceRequest>) => {
  try {
    const result = await scanSlice(event.data, undefined, (bytes) => post({ bytes }));
    post({ ok: true, result }, transferables(result));
  } catch (e) {
    post({
      ok: false,
      changed: e instanceof SliceChanged,
      notUtf8: e instanceof SliceNotUtf8 ? e.line : null,
      message: e instanceof Error ? e.message : String(e),
    });
  }
};
