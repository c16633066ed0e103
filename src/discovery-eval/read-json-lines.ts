import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { createGunzip } from "node:zlib";

/**
 * The JSON values of a JSON Lines file, one per non-blank line, read as a stream (a
 * `.gz` file is decompressed on the fly), stopping after `limit` values so that the
 * first 1k of a 100k-line catalog costs what 1k lines cost.
 */
export async function* readJsonLines(
  path: string,
  limit = Number.POSITIVE_INFINITY,
): AsyncGenerator<unknown> {
  if (limit <= 0) return;
  const file = createReadStream(path);
  const input = path.endsWith(".gz") ? file.pipe(createGunzip()) : file;
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  let count = 0;
  let lineNumber = 0;
  try {
    for await (const line of lines) {
      lineNumber += 1;
      if (line.trim().length === 0) continue;
      try {
        yield JSON.parse(line) as unknown;
      } catch (err) {
        throw new Error(`${path}:${lineNumber}: not JSON (${(err as Error).message})`);
      }
      count += 1;
      if (count >= limit) return;
    }
  } finally {
    lines.close();
    file.destroy();
  }
}

/** All values of a JSON Lines file (up to `limit`), in order. */
export async function readAllJsonLines(path: string, limit?: number): Promise<unknown[]> {
  const values: unknown[] = [];
  for await (const value of readJsonLines(path, limit)) values.push(value);
  return values;
}
