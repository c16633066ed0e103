import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { ReplayBuffer } from "../../src/http/mcp/session-event-store.js";

const note = (data: string): JSONRPCMessage => ({
  jsonrpc: "2.0",
  method: "notifications/message",
  params: { data },
});

/** What a resume after `eventId` would be sent. */
async function replayed(store: ReturnType<ReplayBuffer["forSession"]>, eventId: string) {
  const sent: [string, JSONRPCMessage][] = [];
  const streamId = await store.replayEventsAfter(eventId, {
    send: async (id, message) => {
      sent.push([id, message]);
    },
  });
  return { streamId, sent };
}

describe("the events /mcp keeps for a client resuming a cut stream", () => {
  it("replays what a stream sent after the client's last event, without priming events or other streams", async () => {
    const session = new ReplayBuffer().forSession();
    const primed = await session.storeEvent("call", {} as JSONRPCMessage);
    const first = await session.storeEvent("call", note("a"));
    await session.storeEvent("other", note("elsewhere"));
    const second = await session.storeEvent("call", note("b"));
    expect(await session.getStreamIdForEventId(primed)).toBe("call");
    expect(await replayed(session, primed)).toEqual({
      streamId: "call",
      sent: [
        [first, note("a")],
        [second, note("b")],
      ],
    });
  });

  it("lets an event go after a minute", async () => {
    let now = 0;
    const session = new ReplayBuffer(() => now).forSession();
    const old = await session.storeEvent("call", note("a"));
    now += 61_000;
    await session.storeEvent("call", note("b"));
    expect(await session.getStreamIdForEventId(old)).toBeUndefined();
  });

  it("bounds what every session keeps together, letting the oldest go", async () => {
    const buffer = new ReplayBuffer();
    const [a, b] = [buffer.forSession(), buffer.forSession()];
    const big = await a.storeEvent("call", note("x".repeat(40 * 1024 * 1024)));
    const newer = await b.storeEvent("call", note("y".repeat(30 * 1024 * 1024)));
    expect(await a.getStreamIdForEventId(big)).toBeUndefined();
    expect(await b.getStreamIdForEventId(newer)).toBe("call");
  });
});
