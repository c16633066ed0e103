import type { z } from "zod";
import { type ErrorCode, type ErrorDetail, ServiceError } from "./errors.js";

/**
 * zod issues as the contract's `details`: `{path, message}` with a dotted path. Members an
 * object does not take are one detail each, at the member's own path (zod puts them all
 * at the object's), so that the caller sees which name was wrong where it sent it.
 */
export function toErrorDetails(error: z.ZodError): ErrorDetail[] {
  return error.issues.flatMap((issue) =>
    issue.code === "unrecognized_keys"
      ? issue.keys.map((key) => detail([...issue.path, key], UNKNOWN_MEMBER))
      : [detail(issue.path, issue.message)],
  );
}

const UNKNOWN_MEMBER = "not a member this object takes (its schema lists the members it takes)";

function detail(path: readonly PropertyKey[], message: string): ErrorDetail {
  return { path: path.map(String).join(".") || "(root)", message };
}

/**
 * Parses `input` with `schema` or throws a `ServiceError` (`invalid_request` unless told
 * otherwise) whose details say where and what. The one place input becomes typed.
 */
export function parseOrThrow<S extends z.ZodType>(
  schema: S,
  input: unknown,
  code: ErrorCode = "invalid_request",
  message?: string,
): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const details = toErrorDetails(parsed.error);
  const first = details[0];
  return throwError(code, message ?? (first ? `${first.path}: ${first.message}` : undefined), details);
}

function throwError(code: ErrorCode, message: string | undefined, details: ErrorDetail[]): never {
  throw new ServiceError(code, { message, details });
}

/** Deeper JSON than this is no realistic input, and recursive code (hashing, cloning) may overflow on it. */
export const MAX_JSON_DEPTH = 100;

/**
 * Throws `invalid_request` when `value` nests arrays and objects deeper than `maxDepth`.
 * Walks with an explicit stack, so the check itself cannot overflow.
 */
export function assertJsonDepth(value: unknown, path: string, maxDepth = MAX_JSON_DEPTH): void {
  const pending: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
    if (item.value === null || typeof item.value !== "object") continue;
    if (item.depth >= maxDepth) {
      const message = `nested deeper than ${maxDepth} levels`;
      throw new ServiceError("invalid_request", {
        message: `${path}: ${message}`,
        details: [{ path, message }],
      });
    }
    for (const child of Object.values(item.value)) pending.push({ value: child, depth: item.depth + 1 });
  }
}
