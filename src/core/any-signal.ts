import { setMaxListeners } from "node:events";

/**
 * A controller for a long-lived signal that every waiting request hooks onto (shutdown,
 * say): it has no listener cap, since Node's warning at 11 listeners ("possible memory
 * leak") would fire under ordinary load, where each listener goes with its request.
 */
export function sharedAbortController(): AbortController {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  return controller;
}

/** A signal that aborts when any of its sources does, until it is let go of. */
export interface LinkedSignal {
  readonly signal: AbortSignal;
  /** Aborts the signal now, whatever its sources do, and unhooks it from them. */
  abort(reason: unknown): void;
  /** Unhooks the signal from its sources; call it once the signal is no longer needed. */
  dispose(): void;
}

/**
 * `AbortSignal.any`, except that the sources let go of the signal once it aborts or is
 * disposed. On Node 20, every signal `AbortSignal.any` makes stays reachable from each
 * source for as long as the source lives: a server that linked each request to its
 * shutdown signal kept a few KB per request until it ran out of memory.
 */
export function anySignal(sources: readonly AbortSignal[]): LinkedSignal {
  const controller = new AbortController();
  const hooked: { source: AbortSignal; onAbort: () => void }[] = [];
  const dispose = () => {
    for (const { source, onAbort } of hooked) source.removeEventListener("abort", onAbort);
    hooked.length = 0;
  };
  const abort = (reason: unknown) => {
    controller.abort(reason);
    dispose();
  };
  for (const source of sources) {
    if (source.aborted) {
      abort(source.reason);
      break;
    }
    const onAbort = () => abort(source.reason);
    source.addEventListener("abort", onAbort, { once: true });
    hooked.push({ source, onAbort });
  }
  return { signal: controller.signal, abort, dispose };
}
