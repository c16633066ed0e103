import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { generateSecret } from "../../src/core/keys/secret.js";
import { defineSkill } from "../../src/core/skills/skill.js";
import type { SkillportBackend } from "../../src/mcp/backend.js";
import { capturedLog } from "../support/captured-log.js";
import { bothBackends } from "./both-backends.js";
import { inMemoryMcpClient } from "./in-memory-client.js";

/**
 * A skill that catches a driver's error and says so every way a skill can: a log line (its
 * message, a field and the error) and a progress message. What it says quotes `text`.
 */
const chatty = defineSkill({
  id: "test.chatty",
  title: "Chatty",
  description: "Logs and reports progress quoting the text it is given, then answers.",
  tags: ["test"],
  params: z.object({ text: z.string() }),
  result: z.object({ ok: z.boolean() }),
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  examples: [],
  run: async ({ text }, ctx) => {
    ctx.logger.warn({ err: new Error(text), url: text }, `retrying after ${text}`);
    ctx.progress({ progress: 1, total: 2, message: `retrying after ${text}` });
    // The answer waits a little, so that the progress notification reaches the client's handler first.
    await new Promise((resolve) => setTimeout(resolve, 50));
    return { ok: true };
  },
});

/**
 * A skill that reports progress as a state object it keeps, with members beyond the
 * documented three: TypeScript accepts one from a variable (no excess-property check).
 */
const stateful = defineSkill({
  id: "test.stateful",
  title: "Stateful",
  description: "Reports its progress state object whole, then answers.",
  tags: ["test"],
  params: z.object({ delay_ms: z.number() }),
  result: z.object({ ok: z.boolean() }),
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  examples: [],
  run: async ({ delay_ms }, ctx) => {
    // Time for a follower to subscribe before the progress it should hear.
    await new Promise((resolve) => setTimeout(resolve, delay_ms));
    const state = {
      progress: 1,
      total: 2,
      type: "status",
      execution_id: "exe_someone_else",
      token: "s3cret",
    };
    ctx.progress(state);
    await new Promise((resolve) => setTimeout(resolve, 50));
    return { ok: true };
  },
});

const secret = generateSecret("production");
const text = `with ${secret}: connect failed: postgres://admin:hunter2@db/x; retried https://api.example/v1?api_key=abc123`;
const shown =
  "with sk_[redacted]: connect failed: postgres://admin:[redacted]@db/x; retried https://api.example/v1?api_key=[redacted]";
const leaks = ["hunter2", "abc123", secret];

// A skill's thrown error was masked in the log, but the same text logged through ctx.logger
// reached the server's log and the caller as it was, and a progress message was masked by
// nothing: every way out of a run now masks what a skill says by the same rule.
describe("what a skill logs and reports as progress", () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /** The log and progress notifications an MCP client gets for one call of test.chatty. */
  const mcpCall = async (backend: SkillportBackend, name = "test_chatty", args: object = { text }) => {
    const client = await inMemoryMcpClient(backend);
    cleanups.push(() => client.close());
    const logs: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (note) => {
      logs.push(note.params.data);
    });
    await client.setLoggingLevel("debug");
    const progress: unknown[] = [];
    const result = await client.callTool({ name, arguments: { ...args } }, undefined, {
      onprogress: (update) => progress.push(update),
    });
    expect(result.structuredContent).toEqual({ ok: true });
    return { logs, progress };
  };

  it("reaches the server's log, REST events and MCP notifications with credentials masked", async () => {
    const log = capturedLog("debug");
    const { client, ...backends } = await bothBackends([chatty], cleanups, { logger: log.logger });

    // The server's log: the line as pino writes it, its error's stack included.
    await client.execute({ skill_id: "test.chatty", params: { text } });
    const line = log.lines.find((entry) => entry.skill_id === "test.chatty" && entry.level === 40);
    expect(line).toMatchObject({ msg: `retrying after ${shown}`, url: shown, err: { message: shown } });
    expect(String((line?.err as { stack?: string } | undefined)?.stack)).toContain(shown);

    // REST: the streamed execute's log and progress events.
    const said = [];
    for await (const event of client.executeStream({ skill_id: "test.chatty", params: { text } })) {
      if (event.type === "log") said.push({ message: event.message, fields: event.fields });
      if (event.type === "progress") said.push({ progress: event.progress, message: event.message });
    }
    expect(said).toEqual([
      { message: `retrying after ${shown}`, fields: { err: { type: "Error", message: shown }, url: shown } },
      { progress: 1, message: `retrying after ${shown}` },
    ]);

    // MCP, embedded and --remote alike: notifications/message and notifications/progress.
    for (const backend of [backends.embedded, await backends.remote()]) {
      const { logs, progress } = await mcpCall(backend);
      expect(logs).toEqual([
        { err: { type: "Error", message: shown }, url: shown, message: `retrying after ${shown}` },
      ]);
      expect(progress).toEqual([{ progress: 1, total: 2, message: `retrying after ${shown}` }]);
    }

    const everything = JSON.stringify(log.lines);
    for (const leaked of leaks) expect(everything).not.toContain(leaked);
  });

  // A progress update was spread into its event, so a member named `type` or
  // `execution_id` overwrote the event's own and every follower's stream threw; other
  // members (a `token`) went out as they were. Every place now tells the documented three.
  it("tells followers, streams and MCP clients the documented progress members only", async () => {
    const { client, ...backends } = await bothBackends([stateful], cleanups);
    const expected = { progress: 1, total: 2 };

    const { id } = await client.execute({
      skill_id: "test.stateful",
      params: { delay_ms: 300 },
      async: true,
    });
    const followed = [];
    for await (const event of client.executionEvents(id)) {
      if (event.type === "progress" || event.record.status === "completed") followed.push(event);
    }
    expect(followed).toEqual([
      { type: "progress", execution_id: id, ...expected },
      { type: "status", record: expect.objectContaining({ status: "completed" }) },
    ]);

    const streamed = [];
    for await (const event of client.executeStream({ skill_id: "test.stateful", params: { delay_ms: 0 } })) {
      if (event.type === "progress") streamed.push(event);
    }
    expect(streamed).toEqual([
      { type: "progress", execution_id: expect.stringMatching(/^exe/), ...expected },
    ]);
    expect(streamed[0]?.execution_id).not.toBe("exe_someone_else");

    for (const backend of [backends.embedded, await backends.remote()]) {
      const { progress } = await mcpCall(backend, "test_stateful", { delay_ms: 0 });
      expect(progress).toEqual([expected]);
    }
  });
});
