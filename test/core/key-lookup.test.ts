import { crc32 } from "node:zlib";
import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/core/clock.js";
import { toBase62 } from "../../src/core/ids.js";
import type { ApiKey } from "../../src/core/keys/api-key.js";
import { KeyService } from "../../src/core/keys/key-service.js";
import { hashSecret } from "../../src/core/keys/secret.js";
import type { KeyStore } from "../../src/core/ports.js";

/** A key store that records every lookup the service makes. */
function recordingStore(): KeyStore & { lookups: string[]; keys: Map<string, ApiKey> } {
  const keys = new Map<string, ApiKey>();
  const lookups: string[] = [];
  return {
    keys,
    lookups,
    async insert(key) {
      keys.set(key.hash, key);
    },
    async findByHash(hash) {
      lookups.push(`hash:${hash}`);
      return keys.get(hash);
    },
    async findById(id) {
      lookups.push(`id:${id}`);
      return [...keys.values()].find((k) => k.id === id);
    },
    async list() {
      lookups.push("list");
      return [...keys.values()];
    },
    async revoke() {
      return false;
    },
    async expire() {
      return false;
    },
    async update() {
      return false;
    },
    markUsed() {},
  } as KeyStore & { lookups: string[]; keys: Map<string, ApiKey> };
}

/** A well-formed secret (valid checksum) sharing the first `same` random characters with `secret`. */
function nearMiss(secret: string, same: number): string {
  const prefix = "sk_live_";
  const random = secret.slice(prefix.length, prefix.length + 30);
  const changed = [...random].map((c, i) => (i < same ? c : c === "A" ? "B" : "A")).join("");
  const body = prefix + changed;
  return body + toBase62(crc32(body), 6);
}

// Issue 7, "Security": timing of key checks independent of how much of a key is right.
// The secret is never compared with anything: its SHA-256 is looked up, so a near miss
// costs the same hash and the same one lookup as a stranger's key (bench/key-timing.mjs
// measures it).
describe("key checks", () => {
  it("look a secret up only by the SHA-256 of the whole secret, however much of it is right", async () => {
    const store = recordingStore();
    const service = new KeyService(store, new ManualClock(Date.UTC(2026, 0, 1)));
    const { secret } = await service.create({ name: "real", scope: "full-access" });
    store.lookups.length = 0;
    for (const same of [0, 10, 20, 29]) {
      const guess = nearMiss(secret, same);
      expect(guess).not.toBe(secret);
      await expect(service.authenticate(guess)).rejects.toMatchObject({ code: "invalid_api_key" });
      expect(store.lookups.splice(0)).toEqual([`hash:${hashSecret(guess)}`]);
    }
    await service.authenticate(secret);
    expect(store.lookups).toEqual([`hash:${hashSecret(secret)}`]);
  });
});
