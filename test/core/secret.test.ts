import { describe, expect, it } from "vitest";
import {
  generateSecret,
  hashSecret,
  isWellFormedSecret,
  looksLikeSecret,
  redactSecrets,
  secretLast4,
  secretPrefix,
} from "../../src/core/keys/secret.js";

describe("API key secrets", () => {
  it("have the shape sk_<env>_<base62> with the environment's tag", () => {
    expect(generateSecret("production")).toMatch(/^sk_live_[0-9A-Za-z]{36}$/);
    expect(generateSecret("staging")).toMatch(/^sk_test_[0-9A-Za-z]{36}$/);
    expect(generateSecret("development")).toMatch(/^sk_dev_[0-9A-Za-z]{36}$/);
  });

  it("carry at least 160 bits of randomness and never repeat", () => {
    // 30 random base62 characters: 30 × log2(62) ≈ 178.6 bits.
    expect(30 * Math.log2(62)).toBeGreaterThanOrEqual(160);
    const secrets = new Set(Array.from({ length: 2000 }, () => generateSecret("production")));
    expect(secrets.size).toBe(2000);
  });

  it("are recognised by their checksum", () => {
    const secret = generateSecret("production");
    expect(isWellFormedSecret(secret)).toBe(true);
  });

  it("refuse every single-character typo through the checksum", () => {
    const secret = generateSecret("production");
    const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    let refused = 0;
    let tried = 0;
    for (let i = "sk_live_".length; i < secret.length; i++) {
      for (const c of alphabet) {
        if (c === secret[i]) continue;
        tried++;
        if (!isWellFormedSecret(secret.slice(0, i) + c + secret.slice(i + 1))) refused++;
      }
    }
    expect(refused).toBe(tried);
  });

  it("refuse a changed environment tag, truncation and extra characters", () => {
    const secret = generateSecret("production");
    expect(isWellFormedSecret(secret.replace("sk_live_", "sk_test_"))).toBe(false);
    expect(isWellFormedSecret(secret.slice(0, -1))).toBe(false);
    expect(isWellFormedSecret(`${secret}A`)).toBe(false);
    expect(isWellFormedSecret("")).toBe(false);
    expect(isWellFormedSecret("sk_live_")).toBe(false);
  });

  it("are stored as SHA-256 and shown as a prefix and last four characters", () => {
    const secret = generateSecret("development");
    expect(hashSecret(secret)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashSecret(secret)).not.toContain(secret.slice(8));
    expect(secretPrefix(secret)).toBe(secret.slice(0, "sk_dev_".length + 4));
    expect(secretLast4(secret)).toBe(secret.slice(-4));
  });
});

describe("identifiers", () => {
  it("sort by creation time, even within one millisecond", async () => {
    const { newId } = await import("../../src/core/ids.js");
    const ids = [
      newId("exec", 1000),
      newId("exec", 1000),
      newId("exec", 1000),
      newId("exec", 999_999),
      newId("exec", 1_800_000_000_000),
    ];
    expect([...ids].sort()).toEqual([ids[0], ids[1], ids[2], ids[3], ids[4]]);
    expect(ids[0]).toMatch(/^exec_[0-9A-Za-z]{25}$/);
  });

  it("are recognised in part, quoted or percent-encoded, by the same rule that redacts them", () => {
    const secret = generateSecret("production");
    const traces = [
      secret,
      secret.slice(0, 12),
      `"${secret}"`,
      `Bearer ${secret}`,
      secret.replace("sk_live_", "sk%5flive%5F"),
      secret.replace("sk_", "%73k_"),
      secret.replace("sk_", "s%6B_"),
      secret.replace("sk_", "%2573k_"),
      `${secret.slice(0, 10)}%${secret.charCodeAt(10).toString(16)}${secret.slice(11)}`,
      `sk_live_${secret}`,
      secret.toUpperCase(),
    ];
    for (const trace of traces) {
      expect(looksLikeSecret(trace), trace).toBe(true);
      const redacted = redactSecrets(`GET /v1/${trace}/x`);
      // No 6 characters of the random part are left anywhere.
      for (let i = "sk_live_".length; i + 6 <= secret.length; i++) {
        expect(redacted, trace).not.toContain(secret.slice(i, i + 6));
      }
    }
    for (const harmless of [
      "key_abc123",
      "skill_live_data",
      "sk_prod_x",
      "ask_live",
      "/v1/x?q=a%20b",
      "100% sure",
    ]) {
      expect(looksLikeSecret(harmless)).toBe(false);
      expect(redactSecrets(harmless)).toBe(harmless);
    }
  });
});
