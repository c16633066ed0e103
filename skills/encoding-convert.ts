import { z } from "zod";
import { defineSkill } from "../src/core/skills/skill.js";
import { BYTE_ENCODINGS, decodeBytes, encodeBytes } from "./lib/bytes.js";
import { WELL_FORMED_MESSAGE, WELL_FORMED_UNICODE } from "./lib/text-guards.js";
import { MAX_TEXT_CHARACTERS, TEXT_SIZE_NOTE } from "./lib/text-limits.js";

export const encodingConvert = defineSkill({
  id: "encoding.convert",
  title: "Encode or decode base64, hex and URL encoding",
  description:
    "Converts data between encodings: utf-8 text, base64, base64url, hex and URL percent-encoding (byte by byte, so " +
    "%E9 is the byte 0xE9 even when it is not UTF-8). Encode text with " +
    "from=utf-8 (e.g. to base64), decode with to=utf-8 (e.g. from base64), or convert directly (base64 to hex). " +
    "Use it to read a base64 payload or JWT part, build a URL parameter or inspect bytes.",
  tags: ["encoding", "base64", "hex", "url encode", "decode", "convert", "percent-encoding"],
  params: z.object({
    data: z
      .string()
      .max(MAX_TEXT_CHARACTERS)
      .regex(WELL_FORMED_UNICODE, WELL_FORMED_MESSAGE)
      .describe(`The input, written in the \`from\` encoding. ${TEXT_SIZE_NOTE}`),
    from: z.enum(BYTE_ENCODINGS).default("utf-8").describe("Encoding of `data`: utf-8 for plain text."),
    to: z
      .enum(BYTE_ENCODINGS)
      .describe(
        "Encoding of the result: utf-8 to get plain text back (only for bytes that are UTF-8 text). url escapes " +
          "every byte but A-Z, a-z, 0-9 and -._~ as %XX.",
      ),
  }),
  result: z.object({
    result: z.string().describe("The data in the `to` encoding."),
    from: z.string().describe("Input encoding."),
    to: z.string().describe("Output encoding."),
    bytes: z.number().int().describe("Number of bytes the data represents."),
  }),
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  examples: [
    { query: "base64 encode hello world", params: { data: "hello world", from: "utf-8", to: "base64" } },
    {
      query: "decode this base64 string aGVsbG8=",
      params: { data: "aGVsbG8=", from: "base64", to: "utf-8" },
    },
    { query: "url-encode 'a b&c=d'", params: { data: "a b&c=d", from: "utf-8", to: "url" } },
    { query: "convert base64 to hex", params: { data: "3q2+7w==", from: "base64", to: "hex" } },
    {
      query: "decode the Latin-1 percent-encoded query value caf%E9 to bytes",
      params: { data: "caf%E9", from: "url", to: "hex" },
    },
  ],
  async run(params) {
    const bytes = decodeBytes(params.data, params.from, "data");
    return { result: encodeBytes(bytes, params.to), from: params.from, to: params.to, bytes: bytes.length };
  },
});
