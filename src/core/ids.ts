import { randomBytes } from "node:crypto";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/**
 * `length` uniformly random base62 characters from the system CSPRNG. Bytes ≥ 248 are
 * rejected so that `byte % 62` carries no modulo bias (248 = 4 × 62).
 */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(length + 8)) {
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** Encodes a non-negative integer in base62, left-padded with zeros to `width`. */
export function toBase62(value: number, width: number): string {
  let out = "";
  let rest = value;
  while (rest > 0) {
    out = BASE62[rest % 62] + out;
    rest = Math.floor(rest / 62);
  }
  return out.padStart(width, "0");
}

/** A prefixed random identifier, e.g. `exec_…` (22 base62 characters ≈ 131 bits). */
export function newId(prefix: "exec" | "key" | "msg" | "runner"): string {
  return `${prefix}_${randomBase62(22)}`;
}
