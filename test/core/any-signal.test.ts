import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { anySignal } from "../../src/core/any-signal.js";

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
