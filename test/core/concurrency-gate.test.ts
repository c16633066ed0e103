import { describe, expect, it } from "vitest";
import { ServiceError } from "../../src/core/errors.js";
import { ConcurrencyGate } from "../../src/core/limits/concurrency-gate.js";

function refusal(take: () => unknown): ServiceError | undefined {
  try {
    take();
    return undefined;
  } catch (err) {
    if (err instanceof ServiceError) return err;
    throw err;
  }
}

describe("ConcurrencyGate", () => {
  it("refuses a key's execution beyond its cap with 429 concurrency_limit_exceeded and Retry-After", () => {
    const gate = new ConcurrencyGate({ perKey: 2, total: 10 });
    gate.acquire("a");
    gate.acquire("a");
    const error = refusal(() => gate.acquire("a"));
    expect(error?.code).toBe("concurrency_limit_exceeded");
    expect(error?.status).toBe(429);
    expect(error?.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    // Another key is not held back by the first one's cap.
    expect(refusal(() => gate.acquire("b"))).toBeUndefined();
  });

  it("refuses everyone with 503 service_unavailable and Retry-After once the total is held", () => {
    const gate = new ConcurrencyGate({ perKey: 5, total: 3 });
    gate.acquire("a");
    gate.acquire("b");
    gate.acquire("c");
    expect(gate.saturated).toBe(true);
    const error = refusal(() => gate.acquire("d"));
    expect(error?.code).toBe("service_unavailable");
    expect(error?.status).toBe(503);
    expect(error?.retryAfterSeconds).toBeGreaterThanOrEqual(1);
  });

  it("gives a slot back once however often it is released", () => {
    const gate = new ConcurrencyGate({ perKey: 1, total: 1 });
    const release = gate.acquire("a");
    release();
    release();
    expect(gate.usage).toEqual({ held: 0, capacity: 1 });
    const again = gate.acquire("a");
    expect(refusal(() => gate.acquire("a"))?.code).toBe("concurrency_limit_exceeded");
    again();
    expect(gate.usage.held).toBe(0);
  });

  it("counts work taken over from a dead process without refusing it, and refuses new work meanwhile", () => {
    const gate = new ConcurrencyGate({ perKey: 1, total: 1 });
    const tracked = [gate.track("a"), gate.track("a")];
    expect(gate.usage.held).toBe(2);
    expect(refusal(() => gate.acquire("b"))?.code).toBe("service_unavailable");
    for (const release of tracked) release();
    expect(refusal(() => gate.acquire("b"))).toBeUndefined();
  });
});
