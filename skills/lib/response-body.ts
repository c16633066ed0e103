import { pipeline, Readable, type Transform } from "node:stream";
import { constants, createBrotliDecompress, createGunzip, createInflate, createInflateRaw } from "node:zlib";
import { SkillError } from "../../src/core/skills/skill.js";

/**
 * Decoders by content coding (RFC 9110 section 8.4.1), given the first byte of what they
 * decode. A body cut short still gives what arrived, as browsers do, instead of an error:
 * the flush at the end is a sync flush. A Map, not an object: a coding named
 * "constructor" must not find Object's.
 */
type Decoder = (firstByte: number | undefined) => Transform;
const DECODERS = new Map<string, Decoder>([
  ["gzip", () => createGunzip({ finishFlush: constants.Z_SYNC_FLUSH })],
  ["x-gzip", () => createGunzip({ finishFlush: constants.Z_SYNC_FLUSH })],
  // "deflate" is the zlib format (RFC 9110 section 8.4.1.2), but servers also send raw
  // DEFLATE under that name, and browsers and fetch read both, telling them apart by the
  // zlib header's first byte (compression method 8 in its low bits), as undici does.
  [
    "deflate",
    (firstByte) =>
      firstByte === undefined || (firstByte & 0x0f) === 0x08
        ? createInflate({ finishFlush: constants.Z_SYNC_FLUSH })
        : createInflateRaw({ finishFlush: constants.Z_SYNC_FLUSH }),
  ],
  ["br", () => createBrotliDecompress({ finishFlush: constants.BROTLI_OPERATION_FLUSH })],
]);
/** The codings whose decoder depends on the first byte of what it decodes. */
const READS_FIRST_BYTE = new Set(["deflate"]);
/** More codings than anyone applies are an attempt to chain decoders without end. */
const MAX_CODINGS = 5;

/**
 * How many more bytes than `maxBytes` of a compressed body are downloaded. Compression
 * that honest servers apply adds far less than this even to data it cannot shrink (a few
 * bytes per block), so only a body that decodes to less than it weighs (padding, empty
 * blocks, a decoder consuming garbage) ever reaches the download limit first.
 */
export const COMPRESSED_SLACK_BYTES = 64 * 1024;

/**
 * Which limit cut a body: `max_bytes`, its decoded bytes went on past `maxBytes`;
 * `compressed_bytes`, a compressed body went on past `maxBytes + COMPRESSED_SLACK_BYTES`
 * downloaded bytes while decoding to no more than `maxBytes`.
 */
export const BODY_LIMITS = ["max_bytes", "compressed_bytes"] as const;
export type BodyLimit = (typeof BODY_LIMITS)[number];

export interface BodyRead {
  bytes: Buffer;
  /** The limit past which the body went on and was not read further; null when it was read to its end. */
  truncatedBy: BodyLimit | null;
  /** A content coding was undone: the Content-Encoding and Content-Length headers describe other bytes. */
  decoded: boolean;
}

/**
 * Reads at most `maxBytes` of a response body, undoing its content codings (gzip, deflate,
 * br) first: the cap counts decoded bytes, so a small compressed body that inflates without
 * end (a decompression bomb) stops at the cap like any other, and decoding stops with it.
 * A compressed body is also downloaded no further than `maxBytes + COMPRESSED_SLACK_BYTES`:
 * one that decodes to next to nothing (gzip members or deflate blocks that are empty,
 * brotli metadata) would otherwise be read, and decoded, until the request timed out.
 */
export async function readResponseBody(
  body: Readable,
  contentEncoding: string | undefined,
  maxBytes: number,
): Promise<BodyRead> {
  let decoders: { coding: string; create: Decoder }[];
  try {
    decoders = decodersFor(contentEncoding);
  } catch (err) {
    // Not read, so nobody listens: undici's body emits an AbortError when destroyed.
    body.once("error", () => undefined).destroy();
    throw err;
  }
  if (decoders.length === 0) {
    const read = await readCapped(body, maxBytes);
    return { bytes: read.bytes, truncatedBy: read.truncated ? "max_bytes" : null, decoded: false };
  }
  const download = { limit: maxBytes + COMPRESSED_SLACK_BYTES, cut: false };
  // Codings are listed in the order they were applied, so they are undone from the last.
  let decoded: Readable = Readable.from(downloadedUpTo(body, download), { objectMode: false });
  for (const { coding, create } of decoders.reverse()) {
    const firstByte = READS_FIRST_BYTE.has(coding) ? await peekFirstByte(decoded) : undefined;
    // Either end failing or closing early destroys the other; the error reaches the reader.
    decoded = pipeline(decoded, create(firstByte), () => undefined);
  }
  const read = await readCapped(decoded, maxBytes);
  // What was downloaded before the cut is decoded to its end first: only when that stays
  // within maxBytes was it the download limit that cut the body.
  const truncatedBy = read.truncated ? "max_bytes" : download.cut ? "compressed_bytes" : null;
  return { bytes: read.bytes, truncatedBy, decoded: true };
}

/**
 * The chunks of `body`, ending once `download.limit` bytes have come (`download.cut` then
 * tells whether more were on the way). Ending the loop early destroys `body`, so the rest
 * is never downloaded.
 */
async function* downloadedUpTo(body: Readable, download: { limit: number; cut: boolean }) {
  let total = 0;
  for await (const chunk of body) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    if (total + buffer.length > download.limit) {
      download.cut = true;
      if (total < download.limit) yield buffer.subarray(0, download.limit - total);
      return;
    }
    total += buffer.length;
    yield buffer;
  }
}

function decodersFor(contentEncoding: string | undefined): { coding: string; create: Decoder }[] {
  const codings = (contentEncoding ?? "")
    .split(",")
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== "" && coding !== "identity");
  if (codings.length > MAX_CODINGS) {
    throw new SkillError(
      `The response has ${codings.length} content codings (Content-Encoding); at most ${MAX_CODINGS} are decoded`,
    );
  }
  return codings.map((coding) => {
    const create = DECODERS.get(coding);
    if (!create) {
      throw new SkillError(
        `The response is compressed with ${JSON.stringify(coding.slice(0, 40))}, which http.request cannot ` +
          "decode: send Accept-Encoding with gzip, deflate or br, or leave Accept-Encoding out",
      );
    }
    return { coding, create };
  });
}

/**
 * The first byte `stream` will give, left in it to be read again; undefined when it ends
 * first. Rejects with the stream's error.
 */
async function peekFirstByte(stream: Readable): Promise<number | undefined> {
  for (;;) {
    const chunk = stream.read() as Buffer | null;
    if (chunk !== null && chunk.length > 0) {
      stream.unshift(chunk);
      return chunk[0];
    }
    if (stream.readableEnded || stream.destroyed) return undefined;
    await new Promise<void>((resolve, reject) => {
      const settle = (err?: Error) => {
        stream.off("readable", settle).off("end", settle).off("close", settle).off("error", settle);
        if (err) reject(err);
        else resolve();
      };
      stream.on("readable", settle).on("end", settle).on("close", settle).on("error", settle);
    });
  }
}

async function readCapped(body: Readable, maxBytes: number): Promise<{ bytes: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    if (total + buffer.length > maxBytes) {
      chunks.push(buffer.subarray(0, maxBytes - total));
      // Stop reading: the rest of the body is never downloaded (nor decompressed).
      body.destroy();
      return { bytes: Buffer.concat(chunks), truncated: true };
    }
    chunks.push(buffer);
    total += buffer.length;
  }
  return { bytes: Buffer.concat(chunks), truncated: false };
}
