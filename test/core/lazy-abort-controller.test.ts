import { describe, expect, it } from "vitest";
import { LazyAbortController } from "../../src/core/execution/lazy-abort-controller.js";
import { abortControllersMadeBy } from "./abort-controllers.js";

describe("LazyAbortController", () => {
  it("aborts a signal made before the abort, with the reason", () => {
    const controller = new LazyAbortController();
    const { signal } = controller;
    const seen: unknown[] = [];
    signal.addEventListener("abort", () => seen.push(signal.reason));
    controller.abort("timeout");
    expect(signal.aborted).toBe(true);
    expect(seen).toEqual(["timeout"]);
  });

  it("makes a signal already aborted when it is asked for after the abort", () => {
    const controller = new LazyAbortController();
    controller.abort("cancel");
    expect(controller.signal.aborted).toBe(true);
    expect(controller.signal.reason).toBe("cancel");
  });

  it("keeps the first reason", () => {
    const controller = new LazyAbortController();
    controller.abort("cancel");
    controller.abort("shutdown");
    expect(controller.reason).toBe("cancel");
    expect(controller.signal.reason).toBe("cancel");
  });

  it("preempts with the reason `reclaimed` and what was taken, unless it was aborted already", () => {
    const preempted = new LazyAbortController();
    preempted.preempt({ slot: "thread", heldMs: 7_000, waitedMs: 5_000 });
    preempted.abort("timeout");
    expect(preempted.signal.reason).toBe("reclaimed");
    expect(preempted.preemption).toEqual({ slot: "thread", heldMs: 7_000, waitedMs: 5_000 });
    const timedOut = new LazyAbortController();
    timedOut.abort("timeout");
    timedOut.preempt({ slot: "async", heldMs: 7_000, waitedMs: 5_000 });
    expect(timedOut.reason).toBe("timeout");
    expect(timedOut.preemption).toBeUndefined();
  });

  it("calls each listener once, at once when already aborted, never once removed", () => {
    const controller = new LazyAbortController();
    const heard: string[] = [];
    controller.onAbort((reason) => heard.push(`first:${reason}`));
    const remove = controller.onAbort((reason) => heard.push(`removed:${reason}`));
    remove();
    expect(controller.aborted).toBe(false);
    controller.abort("timeout");
    controller.abort("cancel");
    controller.onAbort((reason) => heard.push(`late:${reason}`));
    expect(heard).toEqual(["first:timeout", "late:timeout"]);
  });

  it("makes no AbortController until its signal is read", async () => {
    const controller = new LazyAbortController();
    const made = await abortControllersMadeBy(() => {
      controller.onAbort(() => {});
      controller.abort("timeout");
    });
    expect(made).toBe(0);
    expect(await abortControllersMadeBy(() => expect(controller.signal.aborted).toBe(true))).toBe(1);
  });
});
