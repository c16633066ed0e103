import { pipeline, type Readable, type Transform } from "node:stream";
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

export interface BodyRead {
  bytes: Buffer;
  /** The body went on past `maxBytes` (after decoding) and was not read further. */
  truncated: boolean;
  /** A content coding was undone: the Content-Encoding and Content-Length headers describe other bytes. */
  decoded: boolean;
}

/**
 * Reads at most `maxBytes` of a response body, undoing its content codings (gzip, deflate,
 * br) first: the cap counts decoded bytes, so a small compressed body that inflates without
 * end (a decompression bomb) stops at the cap like any other, and decoding stops with it.
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
  // Codings are listed in the order they were applied, so they are undone from the last.
  let decoded: Readable = body;
  for (const { coding, create } of decoders.reverse()) {
    const firstByte = READS_FIRST_BYTE.has(coding) ? await peekFirstByte(decoded) : undefined;
    // Either end failing or closing early destroys the other; the error reaches the reader.
    decoded = pipeline(decoded, create(firstByte), () => undefined);
  }
  return { ...(await readCapped(decoded, maxBytes)), decoded: decoders.length > 0 };
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
