import { describe, expect, it } from "vitest";
import { messageList, messageSend } from "../../skills/message.js";
import { fakeContext } from "./fake-context.js";
import { expectSkillError, runSkill } from "./run-skill.js";

describe("message.send", () => {
  it("stores the message in the owner's messages and answers its id with status sent", async () => {
    const ctx = fakeContext();
    const result = await runSkill(messageSend, { channel: "ops", text: "deploy finished" }, ctx);
    expect(result).toEqual({
      message_id: "msg_000001",
      status: "sent",
      channel: "ops",
      created_at: "2024-01-01T00:00:01.000Z",
    });
    expect(ctx.messages.stored).toEqual([
      { id: "msg_000001", channel: "ops", text: "deploy finished", createdAt: "2024-01-01T00:00:01.000Z" },
    ]);
  });

  it("trims the channel name", async () => {
    const ctx = fakeContext();
    await runSkill(messageSend, { channel: "  general ", text: "hi" }, ctx);
    expect(ctx.messages.stored[0]?.channel).toBe("general");
  });

  it("rejects an empty text, a blank channel and a channel with control characters", () => {
    expect(messageSend.params.safeParse({ channel: "ops", text: "" }).success).toBe(false);
    expect(messageSend.params.safeParse({ channel: "   ", text: "x" }).success).toBe(false);
    expect(messageSend.params.safeParse({ channel: "a\nb", text: "x" }).success).toBe(false);
    expect(messageSend.params.safeParse({ channel: "ops" }).success).toBe(false);
  });

  it("rejects a lone surrogate, which the store cannot keep, and takes paired ones (emoji)", () => {
    expect(messageSend.params.safeParse({ channel: "s\ud800", text: "x" }).success).toBe(false);
    expect(messageSend.params.safeParse({ channel: "ops", text: "x\udfff" }).success).toBe(false);
    expect(messageSend.params.safeParse({ channel: "ops", text: "x\ud83d" }).success).toBe(false);
    expect(messageSend.params.safeParse({ channel: "🚀 launches", text: "done 🎉 ✓" }).success).toBe(true);
  });

  // Audit 25, finding 4: one pattern per string (no allOf of two in the JSON Schema), whose
  // refusal still names the rule the text breaks.
  it("says which rule a refused channel or text breaks", () => {
    const messagesOf = (params: Record<string, unknown>) =>
      messageSend.params.safeParse(params).error?.issues.map((issue) => `${issue.path}: ${issue.message}`);
    expect(messagesOf({ channel: "a\tb", text: "x" })).toEqual([
      "channel: must not contain control characters",
    ]);
    expect(messagesOf({ channel: "s\ud800", text: "x" })).toEqual([
      "channel: must be well-formed Unicode (no lone surrogate)",
    ]);
    expect(messagesOf({ channel: "ops", text: "a\u0000b" })).toEqual(["text: must not contain U+0000 (NUL)"]);
  });
});

describe("message.list", () => {
  async function contextWithMessages() {
    const ctx = fakeContext();
    for (const [channel, text] of [
      ["ops", "one"],
      ["general", "two"],
      ["ops", "three"],
      ["ops", "four"],
    ]) {
      await ctx.messages.send(channel as string, text as string);
    }
    return ctx;
  }

  it("lists messages newest first with id, message_id, channel, text and created_at", async () => {
    const result = await runSkill(messageList, {}, await contextWithMessages());
    expect(result.count).toBe(4);
    expect(result.next_before).toBeNull();
    expect((result.messages as { text: string }[]).map((message) => message.text)).toEqual([
      "four",
      "three",
      "two",
      "one",
    ]);
    expect((result.messages as unknown[])[0]).toEqual({
      message_id: "msg_000004",
      id: "msg_000004",
      channel: "ops",
      text: "four",
      created_at: "2024-01-01T00:00:04.000Z",
    });
  });

  it("filters by channel and pages with the before cursor", async () => {
    const ctx = await contextWithMessages();
    const first = await runSkill(messageList, { channel: "ops", limit: 2 }, ctx);
    expect((first.messages as { text: string }[]).map((message) => message.text)).toEqual(["four", "three"]);
    expect(first.next_before).toBe("msg_000003");
    const second = await runSkill(messageList, { channel: "ops", limit: 2, before: first.next_before }, ctx);
    expect((second.messages as { text: string }[]).map((message) => message.text)).toEqual(["one"]);
    expect(second.next_before).toBeNull();
  });

  // Regression: a page that was exactly full got a next_before, and the call it led to
  // answered nothing, though the description promises null when the page is the last.
  it("answers next_before null on a last page that is exactly full", async () => {
    const ctx = fakeContext();
    for (let index = 0; index < 12; index += 1) await ctx.messages.send("ops", `m${index}`);
    expect(await runSkill(messageList, { limit: 12 }, ctx)).toMatchObject({ count: 12, next_before: null });
    const first = await runSkill(messageList, { limit: 6 }, ctx);
    expect(first).toMatchObject({ count: 6, next_before: "msg_000007" });
    const second = await runSkill(messageList, { limit: 6, before: first.next_before }, ctx);
    expect(second).toMatchObject({ count: 6, next_before: null });
    expect(await runSkill(messageList, { channel: "ops", limit: 11 }, ctx)).toMatchObject({
      count: 11,
      next_before: "msg_000002",
    });
  });

  // Regression (audit 22 F17): an unknown cursor answered an empty page with next_before
  // null, as if there were no older messages.
  it("fails a before id that names no message of the board, instead of answering an empty page", async () => {
    const ctx = await contextWithMessages();
    await expectSkillError(
      messageList,
      { before: "msg_0Vc8onev000zyydTrJq9IVpIu" },
      /^No message with id "msg_0Vc8onev000zyydTrJq9IVpIu" on this message board: pass a message_id or next_before/,
      ctx,
    );
  });

  it("answers an empty last page for the oldest message's id, in its channel or another", async () => {
    const ctx = await contextWithMessages();
    const oldest = { messages: [], count: 0, next_before: null };
    expect(await runSkill(messageList, { before: "msg_000001" }, ctx)).toEqual(oldest);
    expect(
      await runSkill(messageList, { before: "msg_000004", channel: "general", limit: 1 }, ctx),
    ).toMatchObject({ count: 1 });
    expect(await runSkill(messageList, { before: "msg_000002", channel: "general" }, ctx)).toEqual(oldest);
  });

  it("defaults limit to 20 and refuses more than 100", () => {
    expect(messageList.params.parse({}).limit).toBe(20);
    expect(messageList.params.safeParse({ limit: 101 }).success).toBe(false);
    expect(messageList.params.safeParse({ limit: 0 }).success).toBe(false);
  });
});
