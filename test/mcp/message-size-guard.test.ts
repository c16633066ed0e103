import { describe, expect, it } from "vitest";
import { MessageSizeGuard, type OversizedMessage } from "../../src/mcp/message-size-guard.js";

/** Feeds `chunks` through a guard of `maxBytes`; what it passed on, and what it dropped. */
async function guard(maxBytes: number, chunks: string[]) {
  const dropped: OversizedMessage[] = [];
  const guarded = new MessageSizeGuard(maxBytes, (message) => dropped.push(message));
  const passed: string[] = [];
  guarded.on("data", (chunk: Buffer) => passed.push(chunk.toString("utf8")));
  for (const chunk of chunks) guarded.write(Buffer.from(chunk));
  guarded.end();
  await new Promise((resolve) => guarded.on("end", resolve));
  return { passed: passed.join(""), dropped };
}

const message = (id: unknown, text: string) =>
  JSON.stringify({ method: "tools/call", params: { arguments: { text } }, jsonrpc: "2.0", id });

describe("MessageSizeGuard", () => {
  it("passes whole messages within the limit on, however they are split into chunks", async () => {
    const lines = `${message(1, "a")}\n${message(2, "b".repeat(50))}\n`;
    const { passed, dropped } = await guard(200, [lines.slice(0, 7), lines.slice(7, 70), lines.slice(70)]);
    expect(passed).toBe(lines);
    expect(dropped).toEqual([]);
  });

  it("drops a message over the limit, finds its id at either end, and passes the next one on", async () => {
    const big = message(7, "x".repeat(5_000));
    const first = `{"jsonrpc":"2.0","id":"abc","method":"ping","params":{"pad":"${"y".repeat(5_000)}"}}`;
    const next = message(8, "ok");
    const stream = `${big}\n${first}\n${next}\n`;
    const chunks = stream.match(/[\s\S]{1,999}/g) ?? [];
    const { passed, dropped } = await guard(1_000, chunks);
    expect(passed).toBe(`${next}\n`);
    expect(dropped).toEqual([
      { id: 7, bytes: Buffer.byteLength(big) },
      { id: "abc", bytes: Buffer.byteLength(first) },
    ]);
  });

  it("does not take a nested id for the request's, and says null when it cannot tell", async () => {
    const nested = JSON.stringify({ jsonrpc: "2.0", method: "x", params: { pad: "z".repeat(2_000), id: 3 } });
    const { dropped } = await guard(500, [`${nested}\n`]);
    expect(dropped).toEqual([{ id: null, bytes: Buffer.byteLength(nested) }]);
  });
});
