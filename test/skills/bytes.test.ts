import { createHash, createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { cryptoHash } from "../../skills/crypto-hash.js";
import { encodingConvert } from "../../skills/encoding-convert.js";
import { WELL_FORMED_UNICODE } from "../../skills/lib/text-guards.js";
import { expectSkillError, runSkill } from "./run-skill.js";

describe("crypto.hash", () => {
  it.each([
    ["sha256", "b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9"],
    ["md5", "5eb63bbbe01eeed093cb22bb8f5acdc3"],
    ["sha1", "2aae6c35c94fcfb415dbe95f408b9ce91ee846ed"],
  ] as const)("computes %s of hello world", async (algorithm, digest) => {
    expect(await runSkill(cryptoHash, { text: "hello world", algorithm })).toEqual({
      digest,
      algorithm,
      hmac: false,
      output: "hex",
    });
  });

  it("computes an HMAC (RFC 4231 test case 2)", async () => {
    const result = await runSkill(cryptoHash, { text: "what do ya want for nothing?", hmac_key: "Jefe" });
    expect(result).toEqual({
      digest: "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
      algorithm: "sha256",
      hmac: true,
      output: "hex",
    });
  });

  it("hashes binary input given as hex and answers base64", async () => {
    const result = await runSkill(cryptoHash, { text: "00ff10", input_encoding: "hex", output: "base64" });
    expect(result.digest).toBe(
      createHash("sha256")
        .update(Buffer.from([0, 255, 16]))
        .digest("base64"),
    );
  });

  // Regression (audit 22, F14): the key was always UTF-8, so a binary webhook secret could not be used.
  it.each([["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"], ["MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"]])(
    "computes the Standard Webhooks signature of the libraries' test vector with the secret %s",
    async (hmac_key) => {
      // standard-webhooks/standard-webhooks, libraries/javascript/src/webhook.test.ts "sign function works":
      // v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE= for msg id, timestamp and payload joined by dots.
      const result = await runSkill(cryptoHash, {
        text: 'msg_p5jXN8AQM9LWM0D4loKWxJek.1614265330.{"test": 2432232314}',
        hmac_key,
        hmac_key_encoding: "base64",
        output: "base64",
      });
      expect(result.digest).toBe("g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
    },
  );

  // Audit 23, #11: whsec_ is made of base64url's characters, so with base64url it was read
  // as part of the key, and the signature was silently wrong.
  it("drops a whsec_ prefix read as base64url too", async () => {
    const result = await runSkill(cryptoHash, {
      text: 'msg_p5jXN8AQM9LWM0D4loKWxJek.1614265330.{"test": 2432232314}',
      hmac_key: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
      hmac_key_encoding: "base64url",
      output: "base64",
    });
    expect(result.digest).toBe("g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
  });

  it("reads a whsec_ key as text when asked, as Stripe signs, and says how to read a Standard Webhooks one", async () => {
    const hmac_key = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const result = await runSkill(cryptoHash, { text: "1614265330.{}", hmac_key });
    expect(result.digest).toBe(createHmac("sha256", hmac_key).update("1614265330.{}").digest("hex"));
    expect(result.note).toMatch(/read as utf-8 text.*Stripe.*set hmac_key_encoding to base64/);
    // Nothing to say otherwise.
    expect(await runSkill(cryptoHash, { text: "x", hmac_key: "s3cret" })).not.toHaveProperty("note");
    expect(
      await runSkill(cryptoHash, { text: "x", hmac_key: hmac_key, hmac_key_encoding: "base64" }),
    ).not.toHaveProperty("note");
  });

  it("computes an HMAC with a hex key (RFC 4231 test case 1)", async () => {
    const result = await runSkill(cryptoHash, {
      text: "Hi There",
      hmac_key: "0b".repeat(20),
      hmac_key_encoding: "hex",
    });
    expect(result.digest).toBe("b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  });

  it("refuses a key that is not what hmac_key_encoding says, or holds no bytes, without echoing it", async () => {
    const error = await expectSkillError(
      cryptoHash,
      { text: "x", hmac_key: "whsec_s3cr3t!", hmac_key_encoding: "base64" },
      /^hmac_key is not valid base64: one of its characters is not a base64 character \(A-Z, a-z, 0-9, \+ and \/, and = as padding at the end\)$/,
    );
    expect(error.message).not.toContain("s3cr3t");
    await expectSkillError(
      cryptoHash,
      { text: "x", hmac_key: "whsec_", hmac_key_encoding: "base64" },
      /^hmac_key holds no bytes once read as base64$/,
    );
  });

  // Regression (audit 22, F14): the hint "it looks like base64url" named an encoding input_encoding refused.
  it("hashes base64url input, as its base64 error suggests", async () => {
    await expectSkillError(
      cryptoHash,
      { text: "aGVsbG8_-w", input_encoding: "base64" },
      /looks like base64url/,
    );
    const result = await runSkill(cryptoHash, { text: "aGVsbG8_-w", input_encoding: "base64url" });
    expect(result.digest).toBe(
      createHash("sha256").update(Buffer.from("aGVsbG8_-w", "base64url")).digest("hex"),
    );
  });

  it("refuses malformed hex input instead of hashing part of it", async () => {
    await expectSkillError(cryptoHash, { text: "abc", input_encoding: "hex" }, /not valid hex/);
  });
});

// Regression: Buffer.from(text, "utf8") replaced a lone surrogate by U+FFFD, so "\ud800"
// and "\ufffd" had the same digest and converted to the same bytes.
describe("lone surrogates (valid JSON, not Unicode text)", () => {
  it("are refused in crypto.hash's text and hmac_key, as message.send refuses them", () => {
    const text = cryptoHash.params.safeParse({ text: "a\ud800" });
    expect(text.success).toBe(false);
    expect(text.error?.issues[0]?.message).toMatch(/well-formed Unicode \(no lone surrogate\)/);
    expect(cryptoHash.params.safeParse({ text: "a", hmac_key: "\udc00k" }).success).toBe(false);
    expect(cryptoHash.params.safeParse({ text: "😀", hmac_key: "😀" }).success).toBe(true);
  });

  it("are refused in encoding.convert's data", () => {
    expect(encodingConvert.params.safeParse({ data: "\ud800", to: "hex" }).success).toBe(false);
    expect(
      encodingConvert.params.safeParse({ data: "%F0%9F%98%80\udc00", from: "url", to: "hex" }).success,
    ).toBe(false);
    expect(encodingConvert.params.safeParse({ data: "😀", to: "hex" }).success).toBe(true);
  });

  // The params' length cap is 1,000,000 characters (skills/lib/text-limits.ts), but a server
  // with a larger body limit still hands longer text to the pattern.
  it("are found at the end of a 10-million-character input without exhausting the regex engine", () => {
    expect(WELL_FORMED_UNICODE.test(`${"a".repeat(9_999_999)}\ud800`)).toBe(false);
    expect(WELL_FORMED_UNICODE.test(`${"😀".repeat(4_999_999)}\udc00`)).toBe(false);
    expect(WELL_FORMED_UNICODE.test("😀".repeat(5_000_000))).toBe(true);
    expect(cryptoHash.params.safeParse({ text: `${"😀".repeat(499_999)}\udc00` }).success).toBe(false);
    expect(cryptoHash.params.safeParse({ text: "😀".repeat(500_000) }).success).toBe(true);
  });
});

describe("encoding.convert", () => {
  it.each([
    ["hello world", "utf-8", "base64", "aGVsbG8gd29ybGQ=", 11],
    ["aGVsbG8gd29ybGQ=", "base64", "utf-8", "hello world", 11],
    ["aGVsbG8gd29ybGQ", "base64", "utf-8", "hello world", 11],
    ["3q2+7w==", "base64", "hex", "deadbeef", 4],
    ["deadbeef", "hex", "base64url", "3q2-7w", 4],
    ["a b&c=d/é!", "utf-8", "url", "a%20b%26c%3Dd%2F%C3%A9%21", 11],
    ["a%20b%26c%3Dd%2F%C3%A9%21", "url", "utf-8", "a b&c=d/é!", 11],
    ["héllo", "utf-8", "hex", "68c3a96c6c6f", 6],
  ] as const)("converts %j from %s to %s", async (data, from, to, result, bytes) => {
    expect(await runSkill(encodingConvert, { data, from, to })).toEqual({ result, from, to, bytes });
  });

  it("refuses invalid base64 and says when it looks like base64url", async () => {
    await expectSkillError(
      encodingConvert,
      { data: "a$b=", from: "base64", to: "utf-8" },
      /^data is not valid base64: "\$" \(character 2\) is not a base64 character \(A-Z, a-z, 0-9, \+ and \/, and = as padding at the end\)$/,
    );
    await expectSkillError(
      encodingConvert,
      { data: "3q2-7w", from: "base64", to: "hex" },
      /looks like base64url/,
    );
  });

  it.each([
    [
      "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln",
      "base64url",
      /^data is not valid base64url: "\." \(character 21\) is not a base64url character .*; a JWT is three base64url parts joined by '\.': decode one part at a time$/,
    ],
    ["aGk=aGk=", "base64", /^data is not valid base64: = is padding and only ends the text/],
    ["aGVsbG8gd", "base64", /^data is not valid base64: its length leaves one character over/],
    [
      "0xdeadbeef",
      "hex",
      /^data is not valid hex: "x" \(character 2\) is not a hex digit \(0-9, a-f\); leave out the 0x prefix$/,
    ],
    ["de:ad:be:ef", "hex", /^data is not valid hex: ":" \(character 3\) is not a hex digit/],
    ["abc", "hex", /^data is not valid hex: it has an odd number of digits \(3\), and each byte is a pair$/],
  ] as const)("says what makes %j not %s, naming the character and where", async (data, from, message) => {
    await expectSkillError(encodingConvert, { data, from, to: "utf-8" }, message);
  });

  it("refuses odd-length hex", async () => {
    await expectSkillError(encodingConvert, { data: "abc", from: "hex", to: "utf-8" }, /not valid hex/);
  });

  it.each(["100%", "%G1", "a%F", "%%41"])("refuses the broken percent-encoding %j", async (data) => {
    await expectSkillError(
      encodingConvert,
      { data, from: "url", to: "utf-8" },
      /^data is not valid percent-encoding: a % must be followed by two hex digits$/,
    );
  });

  // Regression (audit 22, F13): decodeURIComponent refused %FF as "not valid percent-encoding",
  // and encoding bytes that are not UTF-8 to url was refused.
  it.each([
    ["%FF", "url", "hex", "ff", 1],
    ["caf%E9", "url", "hex", "636166e9", 4],
    ["é%ff+%20", "url", "hex", "c3a9ff2b20", 5],
    ["ff00fe", "hex", "url", "%FF%00%FE", 3],
    ["636166e9", "hex", "url", "caf%E9", 4],
    ["2d2e5f7e2b", "hex", "url", "-._~%2B", 5],
  ] as const)("percent-encodes byte by byte: %j from %s to %s", async (data, from, to, result, bytes) => {
    expect(await runSkill(encodingConvert, { data, from, to })).toEqual({ result, from, to, bytes });
  });

  it("round-trips every byte value through url", async () => {
    const hex = Buffer.from(Array.from({ length: 256 }, (_, byte) => byte)).toString("hex");
    const url = await runSkill(encodingConvert, { data: hex, from: "hex", to: "url" });
    expect((await runSkill(encodingConvert, { data: url.result, from: "url", to: "hex" })).result).toBe(hex);
  });

  it("refuses to turn non-UTF-8 bytes into text", async () => {
    await expectSkillError(
      encodingConvert,
      { data: "ff", from: "hex", to: "utf-8" },
      /not valid UTF-8 text: choose hex, base64 or url/,
    );
  });
});

describe("encoding.convert, a byte-order mark", () => {
  // Regression: decoding as UTF-8 stripped a leading BOM, so hex efbbbf41 became "A" in utf-8 and url.
  it("is kept, so the conversion round-trips", async () => {
    expect(await runSkill(encodingConvert, { data: "efbbbf41", from: "hex", to: "url" })).toMatchObject({
      result: "%EF%BB%BFA",
      bytes: 4,
    });
    expect((await runSkill(encodingConvert, { data: "efbbbf41", from: "hex", to: "utf-8" })).result).toBe(
      "\ufeffA",
    );
    expect((await runSkill(encodingConvert, { data: "%EF%BB%BFA", from: "url", to: "hex" })).result).toBe(
      "efbbbf41",
    );
  });
});
