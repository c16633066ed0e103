import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import type { MalformedMessage } from "../../src/mcp/malformed-message.js";
import { MessageGuard, type OversizedMessage } from "../../src/mcp/message-guard.js";

/** Feeds `chunks` through a guard of `maxBytes`; the messages it passed on (parsed), and what it refused. */
async function guard(maxBytes: number, chunks: string[]) {
  const dropped: OversizedMessage[] = [];
  const malformed: MalformedMessage[] = [];
  const guarded = new MessageGuard(maxBytes, {
    oversized: (message) => dropped.push(message),
    malformed: (message) => malformed.push(message),
  });
  const passed: JSONRPCMessage[] = [];
  guarded.on("data", (parsed: JSONRPCMessage) => passed.push(parsed));
  for (const chunk of chunks) guarded.write(Buffer.from(chunk));
  guarded.end();
  await new Promise((resolve) => guarded.on("end", resolve));
  return { passed, dropped, malformed };
}

/** The messages of `text`'s lines, as the server is to be given them. */
const messagesOf = (text: string): unknown[] =>
  text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line));

const message = (id: unknown, text: string) =>
  JSON.stringify({ method: "tools/call", params: { arguments: { text } }, jsonrpc: "2.0", id });

describe("MessageGuard", () => {
  it("passes whole messages within the limit on, however they are split into chunks", async () => {
    const lines = `${message(1, "a")}\n${message(2, "b".repeat(50))}\n`;
    const { passed, dropped } = await guard(200, [lines.slice(0, 7), lines.slice(7, 70), lines.slice(70)]);
    expect(passed).toEqual(messagesOf(lines));
    expect(dropped).toEqual([]);
  });

  it("drops a message over the limit, finds its id at either end, and passes the next one on", async () => {
    const big = message(7, "x".repeat(5_000));
    const first = `{"jsonrpc":"2.0","id":"abc","method":"ping","params":{"pad":"${"y".repeat(5_000)}"}}`;
    const next = message(8, "ok");
    const stream = `${big}\n${first}\n${next}\n`;
    const chunks = stream.match(/[\s\S]{1,999}/g) ?? [];
    const { passed, dropped } = await guard(1_000, chunks);
    expect(passed).toEqual(messagesOf(next));
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

  it("refuses a line that is not JSON with -32700 and id null, and passes the next message on", async () => {
    const next = message(2, "ok");
    const { passed, malformed } = await guard(1_000, [`garbage\n{"jsonrpc":"2.0","id":1,\n${next}\n`]);
    expect(passed).toEqual(messagesOf(next));
    expect(malformed).toEqual([
      { id: null, code: -32700, message: expect.stringMatching(/^Parse error: the line is not JSON \(/) },
      { id: null, code: -32700, message: expect.stringMatching(/^Parse error: /) },
    ]);
  });

  // Regression: the answer repeated JSON.parse's own words, which quote the line (`Unexpected
  // token 's', "sk_live_…" is not valid JSON`), where `/mcp` says of the same text where and
  // why it stops being JSON.
  it("says where a line stops being JSON, as /mcp says it of a body, quoting none of it", async () => {
    const { malformed } = await guard(1_000, [
      '{"jsonrpc":"2.0","id":1,"method":"ping",}\n',
      "sk_live_secret\n",
      '{"jsonrpc":"2.0","id":1\n',
    ]);
    const line = (why: string) =>
      `Parse error: the line is not JSON (${why}); send one JSON-RPC message a line.`;
    expect(malformed.map(({ message }) => message)).toEqual([
      line('unexpected "}" at line 1, column 41 (after a trailing comma)'),
      line("unexpected text at line 1, column 1"),
      line("it ends before the JSON does (a quote, ] or } missing)"),
    ]);
  });

  // A key that would name a prototype, or a number beyond doubles: refused as `/mcp` and `/v1`
  // refuse such a body, never passed on to the SDK's schemas (which drop some and keep others).
  it("refuses JSON no surface passes on with -32600 for the request's id, the contract's error as data", async () => {
    const { passed, malformed } = await guard(1_000, [
      '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"x","arguments":{"__proto__":{"a":1}}}}\n',
      '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"x","arguments":{"n":1e400}}}\n',
    ]);
    expect(passed).toEqual([]);
    const proto =
      "a forbidden key (__proto__: in JavaScript it names an object's prototype, not a member); rename it";
    const huge =
      "a number too large to be read as one (beyond about ±1.8e308); send it as a string, or smaller";
    /** The refusal of request `id` for what is at `path`, `why`: the contract's error as its data. */
    const refusal = (id: number, path: string, why: string) => ({
      id,
      code: -32600,
      message: `invalid_request: ${path}: ${why}`,
      data: { code: "invalid_request", message: `${path}: ${why}`, details: [{ path, message: why }] },
    });
    expect(malformed).toEqual([
      refusal(3, "params.arguments.__proto__", proto),
      refusal(4, "params.arguments.n", huge),
    ]);
  });

  it("refuses JSON that is no JSON-RPC message with -32600, for the id of a request, saying what is wrong", async () => {
    const lines = [
      '{"id":5,"method":"ping"}',
      '{"jsonrpc":"2.0","id":6,"method":"tools/call","params":null}',
      '{"jsonrpc":"2.0","id":"nine","method":"tools/call","params":{"name":"x","_meta":{"progressToken":{"a":1}}}}',
      '{"jsonrpc":"2.0","id":1.5,"method":"ping"}',
      '{"jsonrpc":"2.0","method":"notifications/progress","params":7}',
      // A response's id is the server's own request's: answering it would settle that one.
      '{"jsonrpc":"2.0","id":3,"result":7}',
      "[1,2]",
      "42",
    ];
    const { passed, malformed } = await guard(1_000, [`${lines.join("\n")}\n`]);
    expect(passed).toEqual([]);
    expect(malformed.map(({ id, code }) => ({ id, code }))).toEqual([
      { id: 5, code: -32600 },
      { id: 6, code: -32600 },
      { id: "nine", code: -32600 },
      { id: 1.5, code: -32600 },
      { id: null, code: -32600 },
      { id: null, code: -32600 },
      { id: null, code: -32600 },
      { id: null, code: -32600 },
    ]);
    expect(malformed[0]?.message).toBe(
      'invalid_request: the message is not a JSON-RPC 2.0 message ("jsonrpc" must be "2.0").',
    );
    expect(malformed[1]?.message).toMatch(/^invalid_request: .*\(params: .*object/);
    expect(malformed[2]?.message).toBe(
      "invalid_request: the message is not a JSON-RPC 2.0 message (params._meta.progressToken: must be a string or a number, not an object).",
    );
    expect(malformed[3]?.message).toBe(
      "invalid_request: the message is not a JSON-RPC 2.0 message (id: must be a string or a whole number).",
    );
    expect(malformed[4]?.message).toBe(
      "invalid_request: the message is not a JSON-RPC 2.0 message (params: must be an object, not a number).",
    );
    expect(malformed[6]?.message).toMatch(/a batch is not accepted/);
  });

  it("passes every kind of JSON-RPC message on, with a carriage return before its newline, and drops blank lines", async () => {
    const lines = [
      '{"jsonrpc":"2.0","id":1,"method":"ping"}\r\n',
      '{"jsonrpc":"2.0","method":"notifications/initialized"}\n',
      '{"jsonrpc":"2.0","id":"s1","result":{}}\n',
      '{"jsonrpc":"2.0","id":"s2","error":{"code":-1,"message":"no"}}\n',
    ];
    const { passed, malformed } = await guard(1_000, ["\n", "  \r\n", ...lines]);
    expect(passed).toEqual(messagesOf(lines.join("")));
    expect(malformed).toEqual([]);
  });
});
