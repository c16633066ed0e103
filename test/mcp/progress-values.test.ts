import { afterEach, describe, expect, it } from "vitest";
import type { SkillportBackend } from "../../src/mcp/backend.js";
import { oddProgress, TOLD_PROGRESS } from "../core/odd-progress-skill.js";
import { bothBackends } from "./both-backends.js";
import { inMemoryMcpClient } from "./in-memory-client.js";
import { receivedMessages } from "./received-messages.js";

// MCP 2025-11-25, "Progress": notifications/progress carries `progress` as a number and
// `total`, when given, as a number. A skill's NaN, Infinity or "50" went out as they were
// (or as null over JSON); REST's progress events carried them too.
describe("progress a skill reports with values that are not finite numbers", () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /** The notifications/progress an MCP client receives for one call, as they arrived. */
  const notified = async (backend: SkillportBackend) => {
    const client = await inMemoryMcpClient(backend);
    cleanups.push(() => client.close());
    const { received } = receivedMessages(client);
    const result = await client.callTool({ name: "test_odd_progress", arguments: {} }, undefined, {
      onprogress: () => {},
    });
    expect(result.structuredContent).toEqual({ ok: true });
    return received.flatMap((message) =>
      "method" in message && message.method === "notifications/progress"
        ? [message.params as { progressToken: unknown; progress: unknown; total?: unknown }]
        : [],
    );
  };

  it("sends notifications/progress with a finite number progress, and total only when it is one", async () => {
    const { client, ...backends } = await bothBackends([oddProgress], cleanups);
    for (const backend of [backends.embedded, await backends.remote()]) {
      const sent = await notified(backend);
      expect(sent.map(({ progressToken: _, ...update }) => update)).toEqual(TOLD_PROGRESS);
      for (const params of sent) {
        expect(Number.isFinite(params.progress)).toBe(true);
        if ("total" in params) expect(Number.isFinite(params.total)).toBe(true);
      }
    }

    // REST: the streamed execute's progress events, the same updates.
    const streamed = [];
    for await (const event of client.executeStream({ skill_id: "test.odd_progress", params: {} })) {
      if (event.type === "progress") {
        const { type: _, execution_id: __, ...update } = event;
        streamed.push(update);
      }
    }
    expect(streamed).toEqual(TOLD_PROGRESS);
  });
});
