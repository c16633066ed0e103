import { ServiceError } from "./errors.js";

/** The listings that page with cursors; a cursor of one is refused by the others. */
export type Listing = "skills" | "executions" | "keys";

/**
 * Opaque pagination cursors: base64url JSON, so clients cannot depend on their contents.
 * Each names its listing, so that one listing's position is never read as another's
 * (an execution id is no place in the skill catalog).
 */
export function encodeCursor(listing: Listing, position: Record<string, string>): string {
  return Buffer.from(JSON.stringify({ ...position, of: listing })).toString("base64url");
}

export function decodeCursor<K extends string>(
  cursor: string,
  listing: Listing,
  keys: readonly K[],
): Record<K, string> {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (typeof value === "object" && value !== null) {
      const fields = value as Record<string, unknown>;
      if (fields.of === listing && keys.every((k) => typeof fields[k] === "string")) {
        return fields as Record<K, string>;
      }
    }
  } catch {
    // fall through: any undecodable cursor is the caller's mistake
  }
  throw invalidCursor();
}

/** The refusal of a cursor that is not one this API returned for the listing. */
export function invalidCursor(): ServiceError {
  return new ServiceError("invalid_request", {
    message: "cursor: not a cursor this API returned for this listing",
    details: [{ path: "cursor", message: "not a cursor this API returned for this listing" }],
  });
}
