import { z } from "zod";
import { defineSkill, SkillError } from "../src/core/skills/skill.js";
import { LONGER_RUN } from "./lib/run-timeout.js";

/** Progress is reported this often so that a client sees a long wait is alive. */
const PROGRESS_INTERVAL_MS = 1000;

export const utilWait = defineSkill({
  id: "util.wait",
  title: "Wait",
  description:
    "Waits (sleeps) for the given number of milliseconds, up to 5 minutes, reporting progress every second, then " +
    "returns waited_ms. Use it to pause between steps, back off before a retry or test timeouts and cancellation; " +
    `it stops early when the execution is cancelled or times out. ${LONGER_RUN}: for a longer wait, one above ms.`,
  tags: ["wait", "sleep", "delay", "pause", "timer"],
  params: z.object({
    ms: z
      .number()
      .int()
      .min(0)
      .max(300_000)
      .describe(
        `How long to wait, in milliseconds (0-300000). ${LONGER_RUN}: over 30000, give one above ms.`,
      ),
  }),
  result: z.object({
    waited_ms: z.number().int().describe("Milliseconds waited: equals `ms` once the wait completes."),
  }),
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false, lightAsyncIo: true },
  examples: [
    { query: "wait 2 seconds", params: { ms: 2000 } },
    { query: "pause for half a second before retrying", params: { ms: 500 } },
    { query: "sleep for twenty seconds", params: { ms: 20_000 } },
  ],
  run(params, ctx) {
    const startedAt = performance.now();
    const elapsedMs = () => Math.min(params.ms, Math.round(performance.now() - startedAt));
    return new Promise((resolve, reject) => {
      if (ctx.signal.aborted) {
        reject(abortError(0, ctx.signal));
        return;
      }
      const onAbort = () => {
        cleanUp();
        reject(abortError(elapsedMs(), ctx.signal));
      };
      const ticker = setInterval(() => {
        ctx.progress({
          progress: elapsedMs(),
          total: params.ms,
          message: `waited ${elapsedMs()} of ${params.ms} ms`,
        });
      }, PROGRESS_INTERVAL_MS);
      const timer = setTimeout(() => {
        cleanUp();
        ctx.progress({ progress: params.ms, total: params.ms, message: "done" });
        resolve({ waited_ms: params.ms });
      }, params.ms);
      function cleanUp() {
        clearTimeout(timer);
        clearInterval(ticker);
        ctx.signal.removeEventListener("abort", onAbort);
      }
      ctx.signal.addEventListener("abort", onAbort, { once: true });
    });
  },
});

function abortError(elapsedMs: number, signal: AbortSignal): SkillError {
  return new SkillError(`Wait stopped after ${elapsedMs} ms: the execution was cancelled or timed out`, {
    cause: signal.reason,
  });
}
