/**
 * What an Idempotency-Key may be (contract.md: at most 255 characters), whichever surface
 * it comes through: 1 to 255 printable ASCII characters, the first and last not a space.
 * It travels as an HTTP header, which carries nothing else intact: clients refuse control
 * characters and most non-ASCII, and blanks around a value are trimmed. A key REST could
 * not carry is refused on every surface alike, so that `skillport mcp --remote` (over
 * REST) answers as embedded mode does. It lives with the client library, which checks it
 * before sending and loads no server code; the core's schema (api-schemas.ts) takes it
 * from here, the one import from the client test/core/boundary.test.ts allows the core.
 * No imports.
 */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e](?:[\x20-\x7e]{0,253}[\x21-\x7e])?$/;

export const IDEMPOTENCY_KEY_RULE =
  "1 to 255 printable ASCII characters, not starting or ending with a space (a UUID makes a good one)";
