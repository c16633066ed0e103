import { ServiceError } from "./errors.js";

/** Opaque pagination cursors: base64url JSON, so clients cannot depend on their contents. */
export function encodeCursor(position: Record<string, string>): string {
  return Buffer.from(JSON.stringify(position)).toString("base64url");
}

export function decodeCursor<K extends string>(cursor: string, keys: readonly K[]): Record<K, string> {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (
      typeof value === "object" &&
      value !== null &&
      keys.every((k) => typeof (value as Record<string, unknown>)[k] === "string")
    ) {
      return value as Record<K, string>;
    }
  } catch {
    // fall through: any undecodable cursor is the caller's mistake
  }
  throw new ServiceError("invalid_request", {
    message: "cursor: not a cursor this API returned",
    details: [{ path: "cursor", message: "not a cursor this API returned" }],
  });
}
