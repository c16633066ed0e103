import { z } from "zod";
import { defineSkill, SkillError } from "../src/core/skills/skill.js";
import { cursorPage, fetchLimit } from "./lib/cursor-page.js";
import { CONTROL_FREE, guardedText, NUL_FREE, WELL_FORMED } from "./lib/text-guards.js";
import { trimmedText } from "./lib/trimmed-text.js";

const channel = trimmedText(100, CONTROL_FREE, WELL_FORMED).describe(
  'Channel name, e.g. "general", "alerts" or "user:alice" (1-100 characters).',
);

const messageShape = z.object({
  message_id: z.string().describe("Identifier of the message."),
  id: z.string().describe("Same as message_id (kept for clients that expect `id`)."),
  channel: z.string().describe("Channel the message was posted to."),
  text: z.string().describe("Message text."),
  created_at: z.string().describe("ISO 8601 UTC time the message was stored."),
});

export const messageSend = defineSkill({
  id: "message.send",
  title: "Send a message",
  description:
    "Posts a text message to a named channel of the caller's own message board and returns its message_id and status. " +
    "Use it to notify, tell or inform a team or a person (that a build finished, a task is done), leave a note or " +
    "hand off text to another agent; read messages back with message.list.",
  tags: ["message", "chat", "notify", "send", "post", "tell", "inform", "announce"],
  params: z.object({
    channel,
    text: guardedText(z.string().min(1).max(10_000), WELL_FORMED, NUL_FREE).describe(
      "Text of the message (1-10000 characters, no U+0000).",
    ),
  }),
  result: z.object({
    message_id: z.string().describe("Identifier of the stored message."),
    status: z.literal("sent").describe('Always "sent" once the message is stored.'),
    channel: z.string().describe("Channel the message was posted to."),
    created_at: z.string().describe("ISO 8601 UTC time the message was stored."),
  }),
  annotations: {
    readOnly: false,
    destructive: false,
    idempotent: false,
    openWorld: false,
    lightAsyncIo: true,
  },
  examples: [
    {
      query: "send 'deploy finished' to the ops channel",
      params: { channel: "ops", text: "deploy finished" },
    },
    { query: "post a message saying hello to general", params: { channel: "general", text: "Hello!" } },
    {
      query: "leave a note for alice that the report is ready",
      params: { channel: "user:alice", text: "The report is ready." },
    },
  ],
  async run(params, ctx) {
    const message = await ctx.messages.send(params.channel, params.text);
    return {
      message_id: message.id,
      status: "sent" as const,
      channel: message.channel,
      created_at: message.createdAt,
    };
  },
});

export const messageList = defineSkill({
  id: "message.list",
  title: "List messages",
  description:
    "Lists messages of the caller's message board, newest first, optionally only one channel. " +
    "Page with `before` (pass next_before from the previous answer). Use it to read what message.send stored.",
  tags: ["message", "chat", "inbox", "read", "list", "history"],
  params: z.object({
    channel: channel.optional().describe("Only messages of this channel; all channels when omitted."),
    limit: z.number().int().min(1).max(100).default(20).describe("How many messages to return (1-100)."),
    before: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe(
        "Cursor: return only messages older than the message with this id (a message_id or next_before this " +
          "board gave); an unknown id is an error.",
      ),
  }),
  result: z.object({
    messages: z.array(messageShape).describe("Messages, newest first."),
    count: z.number().int().describe("Number of messages returned."),
    next_before: z
      .string()
      .nullable()
      .describe("Pass as `before` to get the next (older) page; null when this page is the last."),
  }),
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false, lightAsyncIo: true },
  examples: [
    { query: "show the latest messages", params: {} },
    { query: "read the last 5 messages in the ops channel", params: { channel: "ops", limit: 5 } },
    // No example pages with `before`: its id comes from an earlier answer (next_before), and
    // a made-up one is refused as naming no message of the board.
    { query: "list up to 100 messages of the alerts channel", params: { channel: "alerts", limit: 100 } },
  ],
  async run(params, ctx) {
    const stored = await ctx.messages.list({
      channel: params.channel,
      limit: fetchLimit(params.limit),
      before: params.before,
    });
    // A cursor that names no message of this board matches nothing, and an empty page would
    // read as "no older messages": the caller's id is wrong (mistyped, or from another key's
    // owner), and is told so. Only an empty page needs the check: a cursor that found older
    // messages exists.
    if (stored.length === 0 && params.before !== undefined && !(await ctx.messages.has(params.before))) {
      throw new SkillError(
        `No message with id ${JSON.stringify(params.before)} on this message board: pass a message_id or ` +
          "next_before from an earlier answer, or leave before out for the newest messages",
      );
    }
    const { page, next } = cursorPage(stored, params.limit, (message) => message.id);
    const messages = page.map((message) => ({
      message_id: message.id,
      id: message.id,
      channel: message.channel,
      text: message.text,
      created_at: message.createdAt,
    }));
    return { messages, count: messages.length, next_before: next };
  },
});
