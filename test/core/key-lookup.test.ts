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
    async findByIds(ids) {
      lookups.push(`ids:${ids.join(",")}`);
      return [...keys.values()].filter((k) => ids.includes(k.id));
    },
    async listPage() {
      lookups.push("list");
      return [...keys.values()];
    },
    async countByStatus() {
      lookups.push("count");
      return { active: 0, revoked: 0, expired: 0 };
    },
    async revoke() {
      return false;
    },
    async roll() {
      return false;
    },
    async findReplacement() {
      return undefined;
    },
    async update() {
      return false;
    },
    markUsed() {},
    markRefusedUse() {},
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

// A secret pasted where a key id belongs must not come back in the error: CLI output and
// dashboard pages end up in logs. Every operation by id goes through the same lookup.
describe("key operations by id", () => {
  it("refuse a secret given as an id without looking it up or repeating it", async () => {
    const store = recordingStore();
    const service = new KeyService(store, new ManualClock(Date.UTC(2026, 0, 1)));
    const { secret } = await service.create({ name: "real", scope: "full-access" });
    store.lookups.length = 0;
    for (const given of [secret, `Bearer ${secret}`, secret.slice(0, 14), ` ${secret} `]) {
      for (const attempt of [
        () => service.revoke(given),
        () => service.edit(given, { name: "x" }),
        () => service.roll(given, { graceSeconds: 0 }),
        () => service.get(given),
      ]) {
        const err = await attempt().then(
          () => undefined,
          (e: unknown) => e as Error,
        );
        expect(err?.message).toMatch(/looks like a key's secret, not its id/);
        expect(err?.message).not.toContain(secret.slice(8, 14));
      }
    }
    expect(store.lookups).toEqual([]);
  });

  it("name an unknown id only when it is shaped like one", async () => {
    const service = new KeyService(recordingStore(), new ManualClock(Date.UTC(2026, 0, 1)));
    await expect(service.revoke("key_nope")).rejects.toThrow("No API key has the id key_nope.");
    const pasted = "x".repeat(60);
    const err = await service.revoke(pasted).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err?.message).toMatch(/No API key has that id/);
    expect(err?.message).not.toContain(pasted);
  });
});
