import { once } from "node:events";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { logHostOutput } from "../../src/isolation/host-output.js";
import { capturingLogger } from "../support/capturing-logger.js";

/** What `logHostOutput` logs of `chunks` written to the host's stderr, then its end. */
async function logged(chunks: (string | Buffer)[]): Promise<Record<string, unknown>[]> {
  const lines: Record<string, unknown>[] = [];
  const stream = new PassThrough();
  logHostOutput(stream, "stderr", capturingLogger(lines));
  for (const chunk of chunks) stream.write(chunk);
  stream.end();
  await once(stream, "end");
  return lines.map(({ text, truncated }) => ({ text, ...(truncated !== undefined && { truncated }) }));
}

describe("the skill host's output in the server's log", () => {
  it("logs a line split across writes, or a character split across them, once whole", async () => {
    const euro = Buffer.from("€");
    expect(
      await logged(["warn", "ing: 5 ", euro.subarray(0, 1), euro.subarray(1), "\n", "last, unterminated"]),
    ).toEqual([{ text: "warning: 5 €" }, { text: "last, unterminated" }]);
  });

  it("logs a line with no break in sight cut at 8 KiB characters, drops the rest of it, and reads on", async () => {
    const long = "x".repeat(20_000);
    const lines = await logged([long.slice(0, 9_000), long.slice(9_000), " tail\nnext\n"]);
    expect(lines).toEqual([{ text: "x".repeat(8_192), truncated: true }, { text: "next" }]);
  });
});
