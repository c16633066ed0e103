import { describe, expect, it } from "vitest";
import { errorBody, ServiceError } from "../../src/core/errors.js";
import type { RateLimitStatus } from "../../src/core/limits/rate-limit.js";

// `withMessage` rebuilt the error from the fields it listed, and left out `executionId`:
// a 409 idempotency_in_progress told in other words lost the execution it names.

const window = { limit: 10, remaining: 0, resetAtSeconds: 1_800_000_060, windowSeconds: 60 };
const limit: RateLimitStatus = { current: window, windows: [window], allowed: false, retryAfterSeconds: 3 };

function everyField(): ServiceError {
  return new ServiceError("idempotency_in_progress", {
    message: "first words",
    details: [{ path: "/text", message: "too long" }],
    retryAfterSeconds: 3,
    executionId: "exec_first",
    headers: { Allow: "GET" },
    limit,
    cause: new Error("underneath"),
  });
}

/** Every field of the error, as surfaces read it. */
function fields(error: ServiceError) {
  const { code, status, message, details, retryAfterSeconds, executionId, headers, cause } = error;
  return {
    code,
    status,
    message,
    details,
    retryAfterSeconds,
    executionId,
    headers,
    limit: error.limit,
    cause,
  };
}

describe("a ServiceError copied with one change", () => {
  it("withMessage keeps every field but the message", () => {
    const original = everyField();
    const copy = original.withMessage("other words");
    expect(fields(copy)).toEqual({ ...fields(original), message: "other words" });
    expect(copy.cause).toBe(original.cause);
    expect(errorBody(copy)).toEqual({ ...errorBody(original), message: "other words" });
  });

  it("withLimit keeps every field but the limit", () => {
    const original = everyField();
    const after: RateLimitStatus = { ...limit, allowed: true, retryAfterSeconds: undefined };
    expect(fields(original.withLimit(after))).toEqual({ ...fields(original), limit: after });
  });
});
