import { randomBytes } from "node:crypto";

/**
 * UUID version 7 (RFC 9562 section 5.7): 48 bits of Unix milliseconds, version 7,
 * 12 bits `rand_a`, variant 10, 62 bits `rand_b`. Within one millisecond `rand_a`
 * is used as a counter (section 6.2, method 1), seeded randomly with its top bit clear
 * so it has room to grow; when it would overflow the timestamp is advanced by one
 * millisecond (also allowed by 6.2). UUIDs from this process therefore sort in the
 * order they were made, even many per millisecond or when the clock steps back.
 */
export class UuidV7Generator {
  private lastMs = -1;
  private counter = 0;

  constructor(private readonly nowMs: () => number = Date.now) {}

  next(): string {
    let ms = Math.max(this.nowMs(), this.lastMs);
    if (ms === this.lastMs) {
      this.counter += 1;
      if (this.counter > 0xfff) {
        ms += 1;
        this.counter = randomCounterSeed();
      }
    } else {
      this.counter = randomCounterSeed();
    }
    this.lastMs = ms;

    const bytes = randomBytes(16);
    // 48-bit big-endian timestamp; split because bitwise operators are 32-bit in JavaScript.
    const high = Math.floor(ms / 2 ** 32);
    bytes.writeUInt16BE(high & 0xffff, 0);
    bytes.writeUInt32BE(ms % 2 ** 32, 2);
    bytes.writeUInt16BE(0x7000 | this.counter, 6);
    bytes.writeUInt8((bytes.readUInt8(8) & 0x3f) | 0x80, 8);
    return format(bytes);
  }
}

/** 11 random bits: the counter starts in the lower half of its 12-bit range. */
function randomCounterSeed(): number {
  return randomBytes(2).readUInt16BE(0) & 0x7ff;
}

function format(bytes: Buffer): string {
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
