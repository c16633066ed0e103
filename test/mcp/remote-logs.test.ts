import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineSkill } from "../../src/core/skills/skill.js";
import type { SkillportBackend } from "../../src/mcp/backend.js";
import { bothBackends } from "./both-backends.js";
import { inMemoryMcpClient } from "./in-memory-client.js";

/** A skill that logs two lines, one with fields, one with an error. */
const talker = defineSkill({
  id: "test.talker",
  title: "Talker",
  description: "Logs what it is told, then answers.",
  tags: ["test"],
  params: z.object({ text: z.string() }),
  result: z.object({ ok: z.boolean() }),
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  examples: [],
  run: async ({ text }, ctx) => {
    ctx.logger.info({ extra: 1, ...(text.startsWith("sk_") && { key: text }) }, `skill says ${text}`);
    ctx.logger.warn({ err: new Error("careful") }, "watch out");
    return { ok: true };
  },
});

// README, "Use it from an assistant": a skill's log lines arrive as notifications/message
// (after logging/setLevel) in every mode. Regression (audit 21, F2): `--remote` advertised
// `logging` but never sent a line, the REST API having no way to carry them.
describe("a skill's log lines over MCP", () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /** The `notifications/message` a client that asked for debug gets for one call of test.talker. */
  const logsOf = async (backend: SkillportBackend, text = "hi") => {
    const client = await inMemoryMcpClient(backend);
    cleanups.push(() => client.close());
    const messages: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (note) => {
      messages.push(note.params);
    });
    await client.setLoggingLevel("debug");
    const result = await client.callTool({ name: "test_talker", arguments: { text } });
    expect(result.structuredContent).toEqual({ ok: true });
    return messages;
  };

  it("sends them with --remote as embedded mode does, to the caller of the run", async () => {
    const { client, secret, ...backends } = await bothBackends([talker], cleanups);

    const embedded = await logsOf(backends.embedded);
    const remote = await logsOf(await backends.remote());
    // An error's name and message only (no stack reaches a client), in both modes alike.
    // Regression (audit 23, new user #5): embedded mode sent the Error as {}.
    expect(embedded).toEqual([
      { level: "info", logger: "skillport", data: { extra: 1, message: "skill says hi" } },
      {
        level: "warning",
        logger: "skillport",
        data: { err: { type: "Error", message: "careful" }, message: "watch out" },
      },
    ]);
    expect(remote).toEqual(embedded);

    // Only the caller that started the run gets them: not whoever follows its events.
    const events = [];
    for await (const event of client.executeStream({ skill_id: "test.talker", params: { text: "x" } })) {
      events.push(event.type);
    }
    expect(events).toEqual(["status", "log", "log", "status"]);
    const { id } = await client.execute({ skill_id: "test.talker", params: { text: "y" } });
    const followed = [];
    for await (const event of client.executionEvents(id)) followed.push(event.type);
    expect(followed).toEqual(["status"]);
  });

  // Regression (audit 23, new user #6): the server's log masked a working secret a skill
  // logged, but the line relayed to the caller (REST `log` event, MCP notification) kept it.
  it("masks working skillport secrets in the lines it relays, as in execution records", async () => {
    const { client, secret, ...backends } = await bothBackends([talker], cleanups);

    const masked = {
      level: "info",
      logger: "skillport",
      data: { extra: 1, key: "sk_[redacted]", message: "skill says sk_[redacted]" },
    };
    expect((await logsOf(backends.embedded, secret))[0]).toEqual(masked);
    expect((await logsOf(await backends.remote(), secret))[0]).toEqual(masked);
    const logged = [];
    for await (const event of client.executeStream({ skill_id: "test.talker", params: { text: secret } })) {
      if (event.type === "log") logged.push({ message: event.message, fields: event.fields });
    }
    expect(logged[0]).toEqual({
      message: "skill says sk_[redacted]",
      fields: { extra: 1, key: "sk_[redacted]" },
    });
  });
});
