import { z } from "zod";
import { defineSkill, type ProgressUpdate } from "../../src/core/skills/skill.js";

/**
 * What a JavaScript skill (or one that casts) can pass to `ctx.progress`: TypeScript
 * checks only typed callers. Valid updates (progress 1, 2 and 4) come between the others,
 * so that a test can tell which were told.
 */
export const ODD_PROGRESS_UPDATES: unknown[] = [
  { progress: Number.NaN, total: 10 },
  { progress: 1, total: 10, message: "first" },
  { progress: Number.POSITIVE_INFINITY },
  { progress: "50", total: 100 },
  null,
  7,
  { total: 10 },
  { progress: 2, total: Number.NaN, message: "total NaN" },
  { progress: 3, total: "10" },
  { progress: Number.NEGATIVE_INFINITY, total: 10 },
  { progress: 4, total: 10, message: "last" },
];

/** The updates of `ODD_PROGRESS_UPDATES` as callers are told them: the valid ones, bad totals left out. */
export const TOLD_PROGRESS: ProgressUpdate[] = [
  { progress: 1, total: 10, message: "first" },
  { progress: 2, message: "total NaN" },
  { progress: 3 },
  { progress: 4, total: 10, message: "last" },
];

/** Reports every update of `ODD_PROGRESS_UPDATES`, after `delay_ms` (for a follower to subscribe), then answers. */
export const oddProgress = defineSkill({
  id: "test.odd_progress",
  title: "Odd progress",
  description: "Reports progress values that are not finite numbers among valid ones, then answers.",
  tags: ["test"],
  params: z.object({ delay_ms: z.number().int().min(0).default(0) }),
  result: z.object({ ok: z.boolean() }),
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  examples: [],
  run: async ({ delay_ms }, ctx) => {
    await new Promise((resolve) => setTimeout(resolve, delay_ms));
    for (const update of ODD_PROGRESS_UPDATES) ctx.progress(update as ProgressUpdate);
    // The answer waits a little, so that the last progress notification reaches an MCP client's handler first.
    await new Promise((resolve) => setTimeout(resolve, 50));
    return { ok: true };
  },
});
