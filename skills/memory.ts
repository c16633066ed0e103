import { z } from "zod";
import { notSensitive } from "../src/core/skills/sensitive-params.js";
import { defineSkill, SkillError } from "../src/core/skills/skill.js";
import { cursorPage, fetchLimit } from "./lib/cursor-page.js";
import { anyJson } from "./lib/json-input.js";
import { CONTROL_FREE, guardedText, WELL_FORMED } from "./lib/text-guards.js";

/** A memory entry is a note, not a file store; bigger values belong elsewhere. */
const MAX_VALUE_BYTES = 64 * 1024;

// Named like a credential (an API key), it names an entry: records and the dashboard show it.
const key = notSensitive(
  guardedText(z.string().min(1).max(256), CONTROL_FREE, WELL_FORMED).describe(
    'Key of the remembered entry, e.g. "user:ann:preferences" or "user:ann:diet" (1-256 characters).',
  ),
);

export const memorySet = defineSkill({
  id: "memory.set",
  title: "Remember a fact or preference",
  description:
    "Remembers something for later: stores a fact the user tells you about themselves, a preference or a note " +
    "(their name, diet, address, preferred language or units, a project's codename) as any JSON value (up to 64 KiB) " +
    "under a key in the caller's persistent key-value memory, replacing an existing value. Use it when asked to " +
    "remember, note, keep or save something for next time, and for intermediate results across executions; recall " +
    "it with memory.get, forget it with memory.delete.",
  tags: ["memory", "remember", "note", "fact", "preference", "save", "store", "keep", "key-value", "persist"],
  params: z.object({
    key,
    value: anyJson(
      "What to remember: any JSON (a string for a single fact or note, an object for several preferences, or an " +
        "array, number, boolean or null).",
    ),
  }),
  result: z.object({
    key: z.string().describe("The key written."),
    stored: z.literal(true).describe("Always true once the value is stored."),
    replaced: z.boolean().describe("True when the key already had a value, now overwritten."),
    bytes: z.number().int().describe("Size of the stored value as JSON, in bytes."),
  }),
  annotations: { readOnly: false, destructive: true, idempotent: true, openWorld: false, lightAsyncIo: true },
  examples: [
    {
      query: "remember that my favourite colour is green",
      params: { key: "favourite_colour", value: "green" },
    },
    {
      query: "save the user's preferences",
      params: { key: "user:ann:preferences", value: { language: "fr", units: "metric" } },
    },
    { query: "remember this value for later", params: { key: "note", value: "call back at 3pm" } },
    { query: "note that I'm allergic to peanuts", params: { key: "user:ann:allergies", value: ["peanuts"] } },
    { query: "I live in Porto now, remember that", params: { key: "user:ann:city", value: "Porto" } },
  ],
  async run(params, ctx) {
    const json = JSON.stringify(params.value, refuseNonFinite);
    if (json === undefined)
      throw new SkillError("value must be JSON (an object, array, string, number, boolean or null)");
    const bytes = Buffer.byteLength(json, "utf8");
    if (bytes > MAX_VALUE_BYTES) {
      throw new SkillError(`value is ${bytes} bytes as JSON; the limit is ${MAX_VALUE_BYTES} bytes (64 KiB)`);
    }
    // Store the JSON round-trip, so what memory.get returns is exactly what was serialised.
    // `replaced` comes from the write itself: a read before it could be stale by then.
    const { replaced } = await ctx.memory.set(params.key, JSON.parse(json));
    return { key: params.key, stored: true as const, replaced, bytes };
  },
});

export const memoryGet = defineSkill({
  id: "memory.get",
  title: "Recall a saved fact or preference",
  description:
    "Recalls what the user told you earlier: reads the value of a key in the caller's key-value memory (written " +
    "by memory.set), such as a fact about the user, a preference or a saved note. Returns found=false " +
    "and value=null when the key does not exist. Use it when the user asks what they told you before (what is " +
    "my ..., what do you know about ...), or to look up state saved by earlier executions.",
  tags: ["memory", "recall", "told", "get", "read", "lookup", "key-value"],
  params: z.object({ key }),
  result: z.object({
    key: z.string().describe("The key read."),
    found: z.boolean().describe("Whether the key exists."),
    value: z.unknown().describe("The stored JSON value; null when not found."),
    updated_at: z.string().nullable().describe("ISO 8601 time of the last write; null when not found."),
  }),
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false, lightAsyncIo: true },
  examples: [
    { query: "what is my favourite colour?", params: { key: "favourite_colour" } },
    { query: "look up a value I saved in memory", params: { key: "user:ann:preferences" } },
    { query: "get the value stored under a key", params: { key: "draft:newsletter" } },
    { query: "what did I say my job was?", params: { key: "user:ann:job" } },
    { query: "which city did I tell you I live in?", params: { key: "user:ann:city" } },
    { query: "do you remember what I'm allergic to?", params: { key: "user:ann:allergies" } },
  ],
  async run(params, ctx) {
    const entry = await ctx.memory.get(params.key);
    return entry
      ? { key: params.key, found: true, value: entry.value, updated_at: entry.updatedAt }
      : { key: params.key, found: false, value: null, updated_at: null };
  },
});

export const memoryDelete = defineSkill({
  id: "memory.delete",
  title: "Forget a fact or preference",
  description:
    "Forgets a stored fact, preference or note: deletes a key and its value from the caller's key-value " +
    "memory, when the user no longer wants it kept or it is out of date. Returns deleted=false when the key " +
    "did not exist. Use it when the user asks you to forget, erase or stop keeping something, or to clean up state " +
    "that is no longer needed.",
  tags: ["memory", "forget", "delete", "remove", "erase", "key-value"],
  params: z.object({ key }),
  result: z.object({
    key: z.string().describe("The key deleted."),
    deleted: z.boolean().describe("True when the key existed and was removed."),
  }),
  annotations: { readOnly: false, destructive: true, idempotent: true, openWorld: false, lightAsyncIo: true },
  examples: [
    { query: "forget my phone number", params: { key: "user:ann:phone" } },
    { query: "delete the saved draft", params: { key: "draft:newsletter" } },
    { query: "stop keeping where I live, forget it", params: { key: "user:ann:city" } },
    { query: "erase the allergy entry, it was a mistake", params: { key: "user:ann:allergies" } },
  ],
  async run(params, ctx) {
    return { key: params.key, deleted: await ctx.memory.delete(params.key) };
  },
});

export const memoryList = defineSkill({
  id: "memory.list",
  title: "List remembered keys",
  description:
    "Lists everything remembered so far: the keys in the caller's key-value memory (the facts, preferences and " +
    "notes kept with memory.set) with their last update time, optionally only keys starting with a prefix, a page " +
    "at a time (next_after continues). Use it when the user asks what has been saved about them, or to see what " +
    "has been remembered before reading values with memory.get.",
  tags: ["memory", "list", "remembered", "keys", "facts", "preferences", "key-value", "browse"],
  params: z.object({
    prefix: z.string().max(256).optional().describe('Only keys starting with this, e.g. "user:ann:".'),
    limit: z.number().int().min(1).max(1000).default(100).describe("At most this many keys (1-1000)."),
    after: z
      .string()
      .max(256)
      .optional()
      .describe("Continue after this key: the next_after of the previous call, for the next page."),
  }),
  result: z.object({
    keys: z
      .array(z.object({ key: z.string(), updated_at: z.string() }))
      .describe("Keys in order, with the ISO 8601 time of their last write."),
    count: z.number().int().describe("Number of keys returned."),
    next_after: z
      .string()
      .nullable()
      .describe("More keys follow: pass this as after to list them. Null when this is the last page."),
  }),
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false, lightAsyncIo: true },
  examples: [
    { query: "what do you remember about me", params: {} },
    { query: "list saved keys for user ann", params: { prefix: "user:ann:", limit: 50 } },
  ],
  async run(params, ctx) {
    const entries = await ctx.memory.list({
      prefix: params.prefix || undefined,
      after: params.after || undefined,
      limit: fetchLimit(params.limit),
    });
    const { page, next } = cursorPage(entries, params.limit, (entry) => entry.key);
    const keys = page.map((entry) => ({ key: entry.key, updated_at: entry.updatedAt }));
    return { keys, count: keys.length, next_after: next };
  },
});

/**
 * A JSON number too large for a double (1e400) arrives as Infinity, which JSON.stringify
 * would store as null: refused instead of changed.
 */
function refuseNonFinite(_key: string, value: unknown): unknown {
  if (typeof value === "number" && !Number.isFinite(value)) {
    throw new SkillError("value holds a number too large to store (such as 1e400): give it as a string");
  }
  return value;
}
