import { EventEmitter, getEventListeners } from "node:events";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { anySignal } from "../../src/core/any-signal.js";
import { untilGone } from "../../src/http/routes/executions.js";

/** Heap in use after a full collection, in bytes. */
function heapAfterGc(): number {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

describe("anySignal", () => {
  it("aborts when any source aborts, with that source's reason", () => {
    const first = new AbortController();
    const second = new AbortController();
    const { signal } = anySignal([first.signal, second.signal]);
    expect(signal.aborted).toBe(false);
    second.abort("timeout");
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe("timeout");
    first.abort("cancel");
    expect(signal.reason).toBe("timeout");
  });

  it("is aborted at once when a source already is", () => {
    const done = new AbortController();
    done.abort("shutdown");
    const live = new AbortController();
    const { signal } = anySignal([live.signal, done.signal]);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe("shutdown");
    expect(getEventListeners(live.signal, "abort")).toHaveLength(0);
  });

  it("can be aborted directly, and then lets go of its sources", () => {
    const longLived = new AbortController();
    const linked = anySignal([longLived.signal]);
    linked.abort("response closed");
    expect(linked.signal.aborted).toBe(true);
    expect(linked.signal.reason).toBe("response closed");
    expect(getEventListeners(longLived.signal, "abort")).toHaveLength(0);
  });

  it("lets go of every source once it aborts or is disposed", () => {
    const longLived = new AbortController();
    const perCall = new AbortController();
    anySignal([perCall.signal, longLived.signal]);
    perCall.abort();
    expect(getEventListeners(longLived.signal, "abort")).toHaveLength(0);

    const other = new AbortController();
    const linked = anySignal([other.signal, longLived.signal]);
    expect(getEventListeners(longLived.signal, "abort")).toHaveLength(1);
    linked.dispose();
    expect(getEventListeners(longLived.signal, "abort")).toHaveLength(0);
    longLived.abort();
    expect(linked.signal.aborted).toBe(false);
  });
});

describe("untilGone (long polls and event streams)", () => {
  it("fires when the response closes or the server shuts down", () => {
    const shutdown = new AbortController();
    const response = new EventEmitter();
    const closedFirst = untilGone(response, shutdown.signal);
    response.emit("close");
    expect(closedFirst.aborted).toBe(true);
    const stillOpen = untilGone(new EventEmitter(), shutdown.signal);
    shutdown.abort();
    expect(stillOpen.aborted).toBe(true);
  });

  // On Node 20, `AbortSignal.any` kept every signal made from the shutdown signal alive
  // for the life of the server: about 2 KB per request, here about 40 MB.
  it("keeps nothing per request on the server's shutdown signal once the response closes", () => {
    const shutdown = new AbortController();
    const requests = 20_000;
    const serve = () => {
      for (let i = 0; i < requests; i++) {
        const response = new EventEmitter();
        untilGone(response, shutdown.signal);
        response.emit("close");
      }
    };
    serve(); // warms up what the first calls allocate once
    const before = heapAfterGc();
    serve();
    const grown = heapAfterGc() - before;
    expect(grown).toBeLessThan(8 * 1024 * 1024);
    expect(getEventListeners(shutdown.signal, "abort")).toHaveLength(0);
  });
});
