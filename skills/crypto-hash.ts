import { createHash, createHmac } from "node:crypto";
import { z } from "zod";
import { defineSkill } from "../src/core/skills/skill.js";
import { decodeBytes } from "./lib/bytes.js";
import { WELL_FORMED_MESSAGE, WELL_FORMED_UNICODE } from "./lib/text-guards.js";

const ALGORITHMS = ["sha256", "sha512", "sha384", "sha1", "md5", "sha3-256", "sha3-512"] as const;

export const cryptoHash = defineSkill({
  id: "crypto.hash",
  title: "Hash or HMAC text",
  description:
    "Computes a cryptographic hash (SHA-256 by default; SHA-512, SHA-384, SHA-1, MD5, SHA3) or, with hmac_key, an " +
    "HMAC of text, as hex, base64 or base64url. Use it for checksums, content fingerprints, cache keys or to sign or " +
    "verify a webhook payload. MD5 and SHA-1 are for compatibility only, not security.",
  tags: ["crypto", "hash", "sha256", "hmac", "checksum", "md5", "signature", "digest"],
  params: z.object({
    text: z
      .string()
      .max(10_000_000)
      .regex(WELL_FORMED_UNICODE, WELL_FORMED_MESSAGE)
      .describe("The input to hash."),
    input_encoding: z
      .enum(["utf-8", "base64", "hex"])
      .default("utf-8")
      .describe("How `text` is encoded: utf-8 text, or base64/hex for binary data."),
    algorithm: z.enum(ALGORITHMS).default("sha256").describe("Hash algorithm."),
    hmac_key: z
      .string()
      .min(1)
      .max(4096)
      .regex(WELL_FORMED_UNICODE, WELL_FORMED_MESSAGE)
      .optional()
      .describe(
        "Secret key (UTF-8): when given, computes HMAC-<algorithm> instead of a plain hash. Like every param it is " +
          "kept in the execution record, so prefer a dedicated signing key.",
      ),
    output: z.enum(["hex", "base64", "base64url"]).default("hex").describe("Encoding of the digest."),
  }),
  result: z.object({
    digest: z.string().describe("The hash or HMAC in the requested encoding."),
    algorithm: z.string().describe("Algorithm used."),
    hmac: z.boolean().describe("True when an HMAC was computed."),
    output: z.string().describe("Encoding of digest."),
  }),
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  examples: [
    { query: "sha256 of hello world", params: { text: "hello world" } },
    { query: "md5 checksum of this string", params: { text: "abc", algorithm: "md5" } },
    {
      query: "sign this webhook body with HMAC-SHA256 and key s3cret",
      params: { text: '{"event":"ping"}', hmac_key: "s3cret", algorithm: "sha256" },
    },
  ],
  async run(params) {
    const input = decodeBytes(params.text, params.input_encoding, "text");
    const hasher =
      params.hmac_key === undefined
        ? createHash(params.algorithm)
        : createHmac(params.algorithm, params.hmac_key);
    const digest = hasher.update(input).digest(params.output);
    return {
      digest,
      algorithm: params.algorithm,
      hmac: params.hmac_key !== undefined,
      output: params.output,
    };
  },
});
