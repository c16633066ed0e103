import { Writable } from "node:stream";
import { createLogger } from "../../src/logging.js";

/** A logger at `level` whose JSON lines, as the server writes them, land parsed in `lines`. */
export function capturedLog(level = "warn") {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      done();
    },
  });
  return { logger: createLogger(level, sink), lines };
}
