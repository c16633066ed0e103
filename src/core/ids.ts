import { randomFillSync } from "node:crypto";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/**
 * Random bytes are drawn from the CSPRNG 4 KiB at a time and handed out from this pool:
 * ids are made on every request, and one `randomBytes` call each costs more than the
 * id itself (the same reason `crypto.randomUUID` keeps a cache).
 */
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

function randomByte(): number {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  return pool[poolOffset++] ?? 0;
}

/**
 * `length` uniformly random base62 characters from the system CSPRNG. Bytes ≥ 248 are
 * rejected so that `byte % 62` carries no modulo bias (248 = 4 × 62).
 */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    const byte = randomByte();
    if (byte < 248) out += BASE62[byte % 62];
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

let lastMs = 0;
let sequence = 0;

type IdPrefix = "exec" | "key" | "msg" | "runner";

/**
 * A prefixed identifier that sorts by creation time: 8 base62 characters of Unix
 * milliseconds, 3 of a per-process sequence (so ids made in the same millisecond keep
 * their order), then 14 random (≈ 83 bits). The base62 alphabet is in ASCII order, so
 * comparing ids as strings compares their times: "newest first" is exact even for
 * records created in the same millisecond.
 */
export function newId(prefix: IdPrefix, nowMs = Date.now()): string {
  if (nowMs === lastMs) {
    sequence = (sequence + 1) % 62 ** 3;
  } else {
    lastMs = nowMs;
    sequence = 0;
  }
  return `${prefix}_${toBase62(nowMs, 8)}${toBase62(sequence, 3)}${randomBase62(14)}`;
}

/**
 * Every id `newId(prefix, t)` makes sorts below this string when t < ms, and above it
 * otherwise: `id < idFloor(prefix, ms)` selects the ids made before `ms`.
 */
export function idFloor(prefix: IdPrefix, ms: number): string {
  return `${prefix}_${toBase62(ms, 8)}`;
}
