import { PassThrough, Writable } from "node:stream";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import { GuardedStdioTransport } from "../../src/mcp/guarded-stdio-transport.js";
import { MessageGuard } from "../../src/mcp/message-guard.js";

/** stdin → guard → transport → an SDK server → stdout, in process; what the server wrote, a line each. */
async function serving() {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const refused: unknown[] = [];
  const guard = stdin.pipe(
    new MessageGuard(10_000, { oversized: (m) => refused.push(m), malformed: (m) => refused.push(m) }),
  );
  const transport = new GuardedStdioTransport(guard, stdout);
  const server = new Server({ name: "test", version: "0" }, { capabilities: {} });
  await server.connect(transport);
  const written: string[] = [];
  stdout.on("data", (chunk: Buffer) => written.push(...chunk.toString("utf8").split("\n").filter(Boolean)));
  return { stdin, server, transport, written, refused };
}

describe("GuardedStdioTransport", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  // Left open since session 23: behind the guard, the SDK's StdioServerTransport parsed and
  // checked each line a second time (about 2 % of a tool call).
  it("gives the server each message the guard parsed, parsing its line once, and answers one a line", async () => {
    const { stdin, server, written, refused } = await serving();
    const parse = vi.spyOn(JSON, "parse");
    stdin.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\r\n');
    await vi.waitFor(() => expect(written).toHaveLength(1));
    expect(parse).toHaveBeenCalledTimes(1);
    parse.mockRestore();
    expect(JSON.parse(written[0] ?? "")).toEqual({ jsonrpc: "2.0", id: 1, result: {} });
    expect(refused).toEqual([]);
    await server.close();
  });

  // A pipe to stdout is written synchronously on Linux, one system call a write: the answers
  // one group commit made durable all leave in the same turn, and now in one write.
  it("sends the messages of one turn in one write, in order, and those of a later turn in another", async () => {
    const writes: string[][] = [];
    const output = new Writable({
      writev(chunks, done) {
        writes.push(chunks.map(({ chunk }) => String(chunk)));
        done();
      },
      write(chunk, _encoding, done) {
        writes.push([String(chunk)]);
        done();
      },
    });
    const transport = new GuardedStdioTransport(new PassThrough({ objectMode: true }), output);
    const ping = (id: number) => ({ jsonrpc: "2.0" as const, id, result: {} });
    await Promise.all([transport.send(ping(1)), transport.send(ping(2)), transport.send(ping(3))]);
    await new Promise((resolve) => setImmediate(resolve));
    await transport.send(ping(4));
    await new Promise((resolve) => setImmediate(resolve));
    const ids = (lines: string[]) => lines.map((line) => JSON.parse(line).id);
    expect(writes.map(ids)).toEqual([[1, 2, 3], [4]]);
  });

  // A client reading slowly: each send waiting for the full output added a listener, and
  // Node warned of a leak on stderr ("11 drain listeners added to [Socket]").
  it("waits for a full output to drain with one listener, however many sends wait", async () => {
    let drain = () => {};
    const output = new Writable({
      highWaterMark: 64,
      write(_chunk, _encoding, done) {
        drain = done; // taken only when the test says the client read it
      },
    });
    const transport = new GuardedStdioTransport(new PassThrough({ objectMode: true }), output);
    let sent = 0;
    const sends = Array.from({ length: 20 }, (_, id) =>
      transport.send({ jsonrpc: "2.0", id, result: { text: "x".repeat(100) } }).then(() => {
        sent += 1;
      }),
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(output.listenerCount("drain")).toBe(1);
    expect(sent).toBe(0);
    while (output.writableLength > 0) {
      drain();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(sends);
    expect(sent).toBe(20);
    expect(output.listenerCount("drain")).toBe(0);
  });

  it("takes no more messages once closed, and says it closed", async () => {
    const { stdin, transport, written } = await serving();
    const closed = vi.fn();
    const onclose = transport.onclose;
    transport.onclose = () => {
      closed();
      onclose?.();
    };
    await transport.close();
    expect(closed).toHaveBeenCalledTimes(1);
    const onmessage = vi.fn();
    transport.onmessage = onmessage;
    stdin.write('{"jsonrpc":"2.0","id":2,"method":"ping"}\n');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(onmessage).not.toHaveBeenCalled();
    expect(written).toEqual([]);
  });
});
