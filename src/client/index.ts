/**
 * `skillport/client`: the official client library. Everything it exports is here; the
 * types come from the server's own schemas, the code only from this folder and undici.
 */
export { Skillport } from "./client.js";
export type { ClientErrorCode, ErrorBody, SkillportErrorCode } from "./errors.js";
export { SkillportError } from "./errors.js";
export type * from "./types.js";
