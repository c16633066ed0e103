import type { z } from "zod";
import { type ErrorCode, type ErrorDetail, ServiceError } from "./errors.js";

/** zod issues as the contract's `details`: `{path, message}` with a dotted path. */
export function toErrorDetails(error: z.ZodError): ErrorDetail[] {
  return error.issues.map((issue) => ({
    path: issue.path.map(String).join(".") || "(root)",
    message: issue.message,
  }));
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
