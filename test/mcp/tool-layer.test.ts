import {
  type CallToolResult,
  LoggingMessageNotificationSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ServiceError } from "../../src/core/errors.js";
import type { ExecutionRecord } from "../../src/core/execution/record.js";
import { defineSkill } from "../../src/core/skills/skill.js";
import type { SkillportBackend } from "../../src/mcp/backend.js";
import { EmbeddedBackend } from "../../src/mcp/embedded-backend.js";
import { GENERIC_TOOL_NAMES } from "../../src/mcp/generic-tools.js";
import { warnOfSkillsPastToolCap } from "../../src/mcp/tool-catalog.js";
import { assignToolNames, toolNameOf, warnOfToolNames } from "../../src/mcp/tool-names.js";
import { errorResult, outcomeResult } from "../../src/mcp/tool-results.js";
import { type Core, makeCore } from "../core/make-core.js";
import { echo, fail, sleep } from "../core/test-skills.js";
import { capturedLog } from "../support/captured-log.js";
import { runningRecord } from "../support/running-record.js";
import { inMemoryMcpClient } from "./in-memory-client.js";

const annotations = { readOnly: true, destructive: false, idempotent: true, openWorld: false };

const chatty = defineSkill({
  id: "test.chatty",
  title: "Chatty",
  description: "Logs a line, then returns.",
  tags: ["talk"],
  params: z.object({}),
  result: z.object({ ok: z.boolean() }),
  annotations,
  examples: [],
  run: async (_params, ctx) => {
    ctx.logger.info({ step: 1 }, "halfway there");
    return { ok: true };
  },
});

describe("tool names", () => {
  it("keeps [A-Za-z0-9_-] and cuts at 64 characters", () => {
    expect(toolNameOf("math.evaluate")).toBe("math_evaluate");
    expect(toolNameOf("acme:crm/contacts.find-one")).toBe("acme_crm_contacts_find-one");
    expect(toolNameOf("x".repeat(100))).toHaveLength(64);
  });

  it("makes colliding names unique, stably, and never takes a generic tool's name", () => {
    const names = assignToolNames(
      ["a.b", "a_b", "discover.skills", "y".repeat(70), `${"y".repeat(64)}z`],
      ["discover_skills"],
    ).map(({ name }) => name);
    expect(names[0]).toBe("a_b");
    expect(names[1]).toMatch(/^a_b_[0-9a-f]{8}$/);
    expect(names[2]).toMatch(/^discover_skills_[0-9a-f]{8}$/);
    expect(new Set(names).size).toBe(5);
    for (const name of names) expect(name.length).toBeLessThanOrEqual(64);
    expect(assignToolNames(["a.b", "a_b"], []).map(({ name }) => name)).toEqual(names.slice(0, 2));
  });

  // Regression (audit 25, finding 5): a 49-character tool name passes the contract's 64, yet
  // Claude Code's mcp__<server>__ prefix takes it past 64 and the API refuses every request.
  it("warns at start-up, once per skill, of a tool name over 40 characters, saying why and what to do", () => {
    const { logger, lines } = capturedLog();
    const long = "acme.billing.invoices.create_from_subscription_v2";
    warnOfToolNames(["math.evaluate", long, "x".repeat(40), "util.wait"], GENERIC_TOOL_NAMES, logger);
    expect(lines).toEqual([
      expect.objectContaining({
        level: 40,
        skill_id: long,
        tool_name: "acme_billing_invoices_create_from_subscription_v2",
        characters: 49,
        msg: expect.stringContaining("mcp__<server>__<tool>"),
      }),
    ]);
    expect(lines[0]?.msg).toMatch(/refuses a name over 64 characters.*Cursor hides.*shorter id/);
  });
});

// Regression (audit 22, MCP #1): a skill's own tool takes only the skill's params, yet its
// timeout told the agent to call again with a larger timeout_ms, which it cannot pass.
describe("what a timed-out run's result tells the agent to do", () => {
  const timedOut: ExecutionRecord = {
    ...runningRecord("util.wait"),
    status: "timed_out",
    error: { code: "execution_timeout", message: "The execution exceeded its timeout of 30000 ms." },
    latency_ms: 30_000,
    finished_at: "2026-11-25T00:00:30.000Z",
  };
  const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text;

  it("names execute_skill with the skill's id and timeout_ms for a skill's own tool", () => {
    const text = textOf(outcomeResult(timedOut, { ownTool: true }));
    expect(text).toMatch(/^execution_timeout: /);
    expect(text).toContain(
      'call execute_skill with skill_id "util.wait", these params and a larger timeout_ms',
    );
  });

  it("asks execute_skill for a larger timeout_ms", () => {
    expect(textOf(outcomeResult(timedOut))).toContain("call again with a larger timeout_ms (up to 300000)");
  });
});

// Left open in session 26: REST's 409 idempotency_in_progress now names the run going on
// (through --remote it reaches a tool call); the agent is told it too, in text and _meta.
describe("what a refusal for a run still going under the idempotency key tells the agent", () => {
  it("names the execution to follow with get_execution", () => {
    const refusal = new ServiceError("idempotency_in_progress", { executionId: "exec_going" });
    const result = errorResult(refusal, "execute_skill");
    expect(result.isError).toBe(true);
    expect((result.content[0] as { text: string }).text).toContain(
      'To follow it instead: call get_execution with id "exec_going" (and wait_ms).',
    );
    expect(result._meta?.["skillport/error"]).toMatchObject({ execution_id: "exec_going" });
  });
});

// Found by the MCP audit (session 39): `--remote` with the server down answered only
// "service_unavailable: The connection to … failed", with nothing to do about it.
describe("what an unavailable service's result tells the agent to do", () => {
  it("says to call again, with the same idempotency key so that a started run is not made twice", () => {
    const down = new ServiceError("service_unavailable", {
      message: "The connection to http://127.0.0.1:9/ failed: connect ECONNREFUSED 127.0.0.1:9",
    });
    const text = (errorResult(down, "math_evaluate").content[0] as { text: string }).text;
    expect(text).toMatch(/^service_unavailable: The connection to /);
    expect(text).toContain("call again shortly");
    expect(text).toContain('the same _meta["skillport/idempotency_key"]');
  });
});

// A remote server's 401 for a malformed key (or two Authorization headers) was followed by
// "The key stopped working (revoked or expired)", sending its user after a revocation that
// never happened. The hint now fits the core's own refusal, and never repeats the key.
describe("what a refused key's result tells the agent to do", () => {
  const refusalOf = async (secret: string, core: Core) => {
    const err = await core.skillport.keys.authenticate(secret).then(
      () => undefined,
      (error: unknown) => error,
    );
    if (!(err instanceof ServiceError)) throw new Error("expected the key to be refused");
    return textOf(errorResult(err, "execute_skill"));
  };
  const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text;

  it("says revoked or expired only when the refusal says so, and the server's reason otherwise", async () => {
    const core = await makeCore([]);
    const { key, secret } = await core.createKey();
    const badChecksum = `${secret.slice(0, -1)}${secret.endsWith("A") ? "B" : "A"}`;
    for (const malformed of [badChecksum, `${secret}x`, `sk_nope_${secret.slice(8)}`]) {
      const text = await refusalOf(malformed, core);
      expect(text).toMatch(/^invalid_api_key: The API key is malformed: /);
      expect(text).toContain("Fix the key where the assistant's configuration sets it");
      expect(text).not.toMatch(/revoked|expired|stopped working/);
      expect(text).not.toContain(secret.slice(8, 20));
    }
    const twoHeaders = new ServiceError("invalid_api_key", {
      message: "The request has more than one Authorization header: send the API key in one.",
    });
    expect(textOf(errorResult(twoHeaders))).not.toContain("revoked or expired");
    await core.skillport.keys.revoke(key.id);
    const revoked = await refusalOf(secret, core);
    expect(revoked).toContain("The API key is unknown, revoked or expired.");
    expect(revoked).toContain("The key stopped working (revoked or expired): the assistant needs a new one.");
    await core.cleanup();
  });
});

describe("the MCP tool layer on the core", () => {
  let cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    cleanups = [];
  });

  async function connect(
    options: {
      maxTools?: number;
      tags?: string[];
      wrap?: (backend: SkillportBackend) => SkillportBackend;
    } = {},
  ) {
    const core = await makeCore([echo, fail, chatty]);
    const key = await core.keyFor();
    const backend = new EmbeddedBackend(core.skillport, async () => key);
    const client = await inMemoryMcpClient(options.wrap ? options.wrap(backend) : backend, {
      maxTools: options.maxTools ?? 40,
      tags: options.tags ?? [],
    });
    cleanups.push(core.cleanup, () => client.close());
    return { client, core };
  }

  it("answers a run a skill's own tool could not follow as an isError result saying not to call again, which clients accept", async () => {
    // As `--remote` does when the event stream is refused for the key's limit: the run was
    // started, its record is still running. A record is no result of the skill's schema
    // (its outputSchema), which the SDK's client refuses with an McpError.
    const running = runningRecord("test.echo");
    const { client } = await connect({
      wrap: (embedded) =>
        new Proxy(embedded, {
          get(target, property) {
            if (property === "execute") return async () => running;
            const value = Reflect.get(target, property, target);
            return typeof value === "function" ? value.bind(target) : value;
          },
        }),
    });
    await client.listTools(); // the client learns the tools' output schemas
    const result = (await client.callTool({
      name: "test_echo",
      arguments: { text: "hi" },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    const text = result.content.map((part) => (part.type === "text" ? part.text : "")).join("");
    expect(text).toContain("do not call this tool again");
    expect(text).toContain(running.id);
    expect(result._meta?.["skillport/execution_id"]).toBe(running.id);
    // The generic execute_skill, which has no output schema, still answers the record itself.
    const generic = (await client.callTool({
      name: "execute_skill",
      arguments: { skill_id: "test.echo", params: { text: "hi" } },
    })) as CallToolResult;
    expect(generic.isError).toBeFalsy();
    expect(generic.structuredContent).toMatchObject({ id: running.id, status: "running" });
  });

  // Regression (audit 26 F15): past the cap, the skills last by id silently lost their tools.
  it("warns at start-up of the skills the cap leaves without a tool: those the tools list leaves out", async () => {
    const { logger, lines } = capturedLog();
    // Given out of order, as skills/index.ts lists them: the catalog orders them by id.
    warnOfSkillsPastToolCap([fail, echo, chatty], { maxTools: 1, tags: [] }, logger);
    expect(lines).toEqual([
      expect.objectContaining({ level: 40, skills_without_tool: ["test.echo", "test.fail"], max_tools: 1 }),
    ]);
    expect(lines[0]?.msg).toMatch(
      /3 skills qualify .* SKILLPORT_MCP_MAX_TOOLS=1: 2 of them, the last by id, get none .* execute_skill: test\.echo, test\.fail\. .*SKILLPORT_MCP_TOOL_TAGS/,
    );
    const listed = (await (await connect({ maxTools: 1 })).client.listTools()).tools.map((tool) => tool.name);
    expect(listed).not.toContain("test_echo");
    expect(listed).not.toContain("test_fail");
    // Within the cap, or with tags choosing fewer, nothing to say.
    warnOfSkillsPastToolCap([fail, echo, chatty], { maxTools: 3, tags: [] }, logger);
    warnOfSkillsPastToolCap([fail, echo, chatty], { maxTools: 1, tags: ["talk"] }, logger);
    expect(lines).toHaveLength(1);
  });

  it("gives skills their own tools up to the cap, chosen by tag when tags are set", async () => {
    const capped = await connect({ maxTools: 1 });
    expect((await capped.client.listTools()).tools.map((tool) => tool.name)).toEqual([
      "discover_skills",
      "execute_skill",
      "get_execution",
      "test_chatty",
    ]);
    const tagged = await connect({ tags: ["talk"] });
    expect((await tagged.client.listTools()).tools.map((tool) => tool.name).slice(3)).toEqual([
      "test_chatty",
    ]);
    // Tags match in any case, as discovery's filter does.
    const upper = await connect({ tags: [" TALK "] });
    expect((await upper.client.listTools()).tools.map((tool) => tool.name).slice(3)).toEqual(["test_chatty"]);
    // Beyond the cap a skill is still reached through execute_skill.
    const viaGeneric = (await capped.client.callTool({
      name: "execute_skill",
      arguments: { skill_id: "test.echo", params: { text: "hi" } },
    })) as CallToolResult;
    expect(viaGeneric.structuredContent).toEqual({ text: "hi" });
    await expect(capped.client.callTool({ name: "test_echo", arguments: { text: "hi" } })).rejects.toThrow(
      /Unknown tool/,
    );
  });

  it("sends a skill's log lines as notifications/message at the level the client chose", async () => {
    const { client } = await connect();
    const lines: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      lines.push(notification.params);
    });
    await client.setLoggingLevel("info");
    await client.callTool({ name: "test_chatty", arguments: {} });
    expect(lines).toEqual([
      expect.objectContaining({
        level: "info",
        data: expect.objectContaining({ message: "halfway there", step: 1 }),
      }),
    ]);
    await client.setLoggingLevel("error");
    await client.callTool({ name: "test_chatty", arguments: {} });
    expect(lines).toHaveLength(1);
  });

  it("keeps internal details of an unexpected failure out of the result", async () => {
    const { client } = await connect();
    const result = (await client.callTool({
      name: "test_fail",
      arguments: { unexpected: true },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    const text = JSON.stringify(result.content);
    expect(text).toMatch(/execution_failed/);
    expect(text).not.toContain("/srv/secret/path");
  });

  it("tells the client when the catalog changes, and lists the new skill", async () => {
    const { client, core } = await connect();
    const changed = new Promise<void>((resolve) => {
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve());
    });
    core.skillport.registry.add(
      defineSkill({ ...echo, id: "test.echo2", title: "Echo 2", run: async ({ text }) => ({ text }) }),
    );
    await changed;
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain("test_echo2");
  });
});

describe("the embedded backend", () => {
  it("cancels a call with an idempotency key cancelled while its execution is being started", async () => {
    const core = await makeCore([sleep]);
    try {
      const key = await core.keyFor();
      const backend = new EmbeddedBackend(core.skillport, async () => key);
      const cancelled = new AbortController();
      const answer = backend.execute({
        request: { skill_id: "test.sleep", params: { ms: 1_000 }, timeout_ms: 5_000 },
        idempotencyKey: "cancelled-early",
        signal: cancelled.signal,
      });
      // Before the execution is stored and its id known (the call's first turns).
      cancelled.abort();
      const { id } = await answer;
      expect(await core.skillport.queries.get(key, id, 3_000)).toMatchObject({
        status: "cancelled",
        error: { code: "execution_cancelled" },
      });
    } finally {
      await core.cleanup();
    }
  });
});
