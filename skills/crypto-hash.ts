import { createHash, createHmac } from "node:crypto";
import { z } from "zod";
import { sensitive } from "../src/core/skills/sensitive-params.js";
import { defineSkill, SkillError } from "../src/core/skills/skill.js";
import { decodeBytes } from "./lib/bytes.js";
import { WELL_FORMED_MESSAGE, WELL_FORMED_UNICODE } from "./lib/text-guards.js";
import { MAX_TEXT_CHARACTERS, TEXT_SIZE_NOTE } from "./lib/text-limits.js";

const ALGORITHMS = ["sha256", "sha512", "sha384", "sha1", "md5", "sha3-256", "sha3-512"] as const;
/** How text and hmac_key may be written; url is left out, as data to hash or a key is not written in it. */
const BINARY_ENCODINGS = ["utf-8", "base64", "base64url", "hex"] as const;
/**
 * Standard Webhooks (and Svix) prefix their base64 secrets with it; their libraries drop it.
 * Stripe's signing secrets start with it too, and are used whole, as text.
 */
const STANDARD_WEBHOOKS_PREFIX = "whsec_";

export const cryptoHash = defineSkill({
  id: "crypto.hash",
  title: "Hash or HMAC text",
  description:
    "Computes a cryptographic hash (SHA-256 by default; SHA-512, SHA-384, SHA-1, MD5, SHA3) or, with hmac_key, an " +
    "HMAC of text or of binary data (base64, base64url or hex), as hex, base64 or base64url. Use it for checksums, " +
    "content fingerprints, cache keys or to sign or verify a webhook payload; the key may be text or binary " +
    "(hmac_key_encoding), such as a Standard Webhooks whsec_ secret. MD5 and SHA-1 are for compatibility only, not " +
    "security.",
  tags: ["crypto", "hash", "sha256", "hmac", "checksum", "md5", "signature", "digest"],
  params: z.object({
    text: z
      .string()
      .max(MAX_TEXT_CHARACTERS)
      .regex(WELL_FORMED_UNICODE, WELL_FORMED_MESSAGE)
      .describe(`The input to hash, written in input_encoding. ${TEXT_SIZE_NOTE}`),
    input_encoding: z
      .enum(BINARY_ENCODINGS)
      .default("utf-8")
      .describe("How `text` is encoded: utf-8 text, or base64, base64url or hex for binary data."),
    algorithm: z.enum(ALGORITHMS).default("sha256").describe("Hash algorithm."),
    // A webhook signing secret belongs to the provider and cannot be swapped for another:
    // the record keeps it only until the execution can no longer start.
    hmac_key: sensitive(
      z
        .string()
        .min(1)
        .max(4096)
        .regex(WELL_FORMED_UNICODE, WELL_FORMED_MESSAGE)
        .optional()
        .describe(
          "Secret key: when given, computes HMAC-<algorithm> instead of a plain hash. Read as hmac_key_encoding " +
            "says. The execution record keeps it as [redacted] once the execution ends.",
        ),
      "value",
    ),
    hmac_key_encoding: z
      .enum(BINARY_ENCODINGS)
      .default("utf-8")
      .describe(
        "How hmac_key is encoded: utf-8 for a text secret (most webhooks: GitHub, Slack, and Stripe, whose " +
          "whsec_ secret is used whole as text), or base64, base64url or hex for a binary key. A Standard Webhooks " +
          "/ Svix secret (whsec_...) is base64 after its whsec_ prefix: give it whole with base64 (or base64url); " +
          "the prefix is dropped.",
      ),
    output: z.enum(["hex", "base64", "base64url"]).default("hex").describe("Encoding of the digest."),
  }),
  result: z.object({
    digest: z.string().describe("The hash or HMAC in the requested encoding."),
    algorithm: z.string().describe("Algorithm used."),
    hmac: z.boolean().describe("True when an HMAC was computed."),
    output: z.string().describe("Encoding of digest."),
    note: z
      .string()
      .optional()
      .describe(
        "Present when the input may not be what was meant: a whsec_ hmac_key read as utf-8 text, right for " +
          "Stripe, wrong for a Standard Webhooks / Svix secret.",
      ),
  }),
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  examples: [
    { query: "sha256 of hello world", params: { text: "hello world" } },
    { query: "md5 checksum of this string", params: { text: "abc", algorithm: "md5" } },
    {
      query: "sign this webhook body with HMAC-SHA256 and key s3cret",
      params: { text: '{"event":"ping"}', hmac_key: "s3cret", algorithm: "sha256" },
    },
    {
      query: "compute the Standard Webhooks signature of a message with secret whsec_...",
      params: {
        text: 'msg_p5jXN8AQM9LWM0D4loKWxJek.1614265330.{"test": 2432232314}',
        hmac_key: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
        hmac_key_encoding: "base64",
        output: "base64",
      },
    },
  ],
  async run(params) {
    const input = decodeBytes(params.text, params.input_encoding, "text");
    const hasher =
      params.hmac_key === undefined
        ? createHash(params.algorithm)
        : createHmac(params.algorithm, hmacKey(params.hmac_key, params.hmac_key_encoding));
    const digest = hasher.update(input).digest(params.output);
    return {
      digest,
      algorithm: params.algorithm,
      hmac: params.hmac_key !== undefined,
      output: params.output,
      ...(params.hmac_key?.startsWith(STANDARD_WEBHOOKS_PREFIX) && params.hmac_key_encoding === "utf-8"
        ? { note: WHSEC_AS_TEXT_NOTE }
        : {}),
    };
  },
});

/**
 * A whsec_ secret is text to Stripe and base64 to Standard Webhooks: read as text, as asked,
 * the digest is right for one and wrong for the other, so the answer says which it was.
 */
const WHSEC_AS_TEXT_NOTE =
  "hmac_key was read as utf-8 text, whsec_ prefix included, as Stripe signs. For a Standard Webhooks / Svix " +
  "secret, whose key is the base64 after whsec_, set hmac_key_encoding to base64.";

/**
 * The key's bytes; a Standard Webhooks secret's whsec_ prefix is not part of its base64
 * (nor of base64url, whose alphabet it belongs to: kept, it would silently give another key).
 */
function hmacKey(key: string, encoding: (typeof BINARY_ENCODINGS)[number]): Buffer {
  const encoded =
    (encoding === "base64" || encoding === "base64url") && key.startsWith(STANDARD_WEBHOOKS_PREFIX)
      ? key.slice(STANDARD_WEBHOOKS_PREFIX.length)
      : key;
  const bytes = decodeBytes(encoded, encoding, "hmac_key", { secret: true });
  // An empty key signs nothing anyone could not forge.
  if (bytes.length === 0) throw new SkillError(`hmac_key holds no bytes once read as ${encoding}`);
  return bytes;
}
