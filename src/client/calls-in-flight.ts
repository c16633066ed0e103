import { clientClosed } from "./errors.js";

/**
 * The calls of one client under way, so that `close()` lets them finish as they would have
 * and refuses those that begin after it. A call is in flight from its start until it
 * settles, its waits between attempts (a retry's backoff, a long poll's pause, a run waited
 * out under its Idempotency-Key, an event stream's reconnection) and the attempts after them
 * included: undici's own graceful close waits only for requests on the wire, and a call
 * asleep between two of them lost the pool and failed with `client_closed`.
 */
export class CallsInFlight {
  #running = 0;
  #closing = false;
  #ended: Promise<void> | undefined;
  #lastEnded: (() => void) | undefined;

  /** Runs `call` in flight; refused with `client_closed`, not run, once closing began. */
  async run<T>(call: () => Promise<T>): Promise<T> {
    this.#begin();
    try {
      return await call();
    } finally {
      this.#end();
    }
  }

  /**
   * The items of `iterate()`, in flight from the first step until it ends, fails or is left
   * (`break`, `return()`): an event stream's follow holds its connection, and opens the next
   * one of its own accord, between the steps its caller takes.
   */
  async *iterate<T>(iterate: () => AsyncGenerator<T>): AsyncGenerator<T> {
    this.#begin();
    try {
      yield* iterate();
    } finally {
      this.#end();
    }
  }

  /** Refuses every call that begins from now on; resolves once the calls in flight have ended. */
  close(): Promise<void> {
    this.#closing = true;
    this.#ended ??=
      this.#running === 0
        ? Promise.resolve()
        : new Promise((resolve) => {
            this.#lastEnded = resolve;
          });
    return this.#ended;
  }

  #begin(): void {
    if (this.#closing) throw clientClosed();
    this.#running++;
  }

  #end(): void {
    this.#running--;
    if (this.#running === 0) this.#lastEnded?.();
  }
}
