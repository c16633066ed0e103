import { ServiceError } from "../errors.js";
import { looksLikeSecret } from "./secret.js";

/** A key id as `newId("key")` makes them; anything else is not echoed back. */
const KEY_ID_SHAPE = /^key_[0-9A-Za-z]{1,40}$/;

/**
 * Refuses a key id that may be a secret, before any lookup. An operator who pastes a
 * secret where an id belongs (`keys revoke sk_live_…`) would otherwise see it repeated in
 * an error message, and from there in CI and ops logs.
 */
export function assertNotASecret(id: string): void {
  if (looksLikeSecret(id)) {
    throw new ServiceError("invalid_request", {
      message:
        "That looks like a key's secret, not its id (ids start with key_): find the id with `skillport keys list` or in the dashboard.",
    });
  }
}

/** The refusal of an id no key has: naming it only when it is id-shaped, so nothing else is echoed. */
export function unknownKeyIdError(id: string): ServiceError {
  const which = KEY_ID_SHAPE.test(id) ? `the id ${id}` : "that id (ids start with key_)";
  return new ServiceError("invalid_request", { message: `No API key has ${which}.` });
}
