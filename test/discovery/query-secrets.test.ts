import { describe, expect, it } from "vitest";
import { holdsSecret, queryWithoutSecrets } from "../../src/core/discovery/query-secrets.js";
import { generateSecret } from "../../src/core/keys/secret.js";

describe("the secrets of a discover query (audit 26 #1)", () => {
  it("masks a working skillport secret, a URL's or a member's credentials and a Bearer token", () => {
    const key = generateSecret("production");
    expect(queryWithoutSecrets(`hash this text with my key ${key}`)).toBe(
      "hash this text with my key sk_[redacted]",
    );
    expect(queryWithoutSecrets("fetch https://user:pw@example.com/x")).toBe(
      "fetch https://user:[redacted]@example.com/x",
    );
    expect(queryWithoutSecrets("get https://api.example.com/data?api_key=DISC123&x=1 now")).toBe(
      "get https://api.example.com/data?api_key=[redacted]&x=1 now",
    );
    expect(queryWithoutSecrets("send it with Authorization: Bearer ghp_DISCTOKEN9 please")).toBe(
      "send it with Authorization: Bearer [redacted] please",
    );
    expect(queryWithoutSecrets("call bearer eyJhbGciOiJIUzI1NiJ9.e30.abc")).toBe("call bearer [redacted]");
  });

  it("keeps a query without one as it is, words about tokens included", () => {
    for (const query of [
      "store a short text",
      "validate a bearer token",
      "Bearer authentication header",
      "is sk_test_abc a Stripe key",
      "mail bob@example.com",
    ]) {
      expect(holdsSecret(query), query).toBe(false);
      expect(queryWithoutSecrets(query)).toBe(query);
    }
  });
});
