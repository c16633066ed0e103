import { z } from "zod";
import { notSensitive } from "../../src/core/skills/sensitive-params.js";
import { defineSkill, SkillError } from "../../src/core/skills/skill.js";

const annotations = { readOnly: true, destructive: false, idempotent: true, openWorld: false };

/** Small skills whose behaviour the core tests control exactly. */
export const echo = defineSkill({
  id: "test.echo",
  title: "Echo",
  description: "Returns its text unchanged.",
  tags: ["test"],
  params: z.object({ text: z.string() }),
  result: z.object({ text: z.string() }),
  annotations,
  examples: [],
  run: async ({ text }) => ({ text }),
});

export const fail = defineSkill({
  id: "test.fail",
  title: "Fail",
  description: "Always fails, clearly or unexpectedly.",
  tags: ["test"],
  params: z.object({ unexpected: z.boolean().default(false) }),
  result: z.object({}),
  annotations,
  examples: [],
  run: async ({ unexpected }) => {
    if (unexpected) throw new TypeError("internal detail /srv/secret/path");
    throw new SkillError("the input was not acceptable");
  },
});

export const sleep = defineSkill({
  id: "test.sleep",
  title: "Sleep",
  description: "Waits, honouring the signal, and reports progress at its start and end.",
  tags: ["test"],
  params: z.object({ ms: z.number().int().min(0) }),
  result: z.object({ slept: z.number() }),
  annotations,
  examples: [],
  run: ({ ms }, ctx) =>
    new Promise((resolve, reject) => {
      ctx.progress({ progress: 0, total: 1, message: "started" });
      const timer = setTimeout(() => {
        ctx.progress({ progress: 1, total: 1, message: "done" });
        resolve({ slept: ms });
      }, ms);
      ctx.signal.addEventListener("abort", () => {
        clearTimeout(timer);
        reject(new Error("aborted"));
      });
    }),
});

/** Ignores its abort signal entirely: its timeout must still end the execution. */
export const stubborn = defineSkill({
  id: "test.stubborn",
  title: "Stubborn",
  description: "Takes long and ignores the abort signal.",
  tags: ["test"],
  params: z.object({ ms: z.number().int() }),
  result: z.object({}),
  annotations,
  examples: [],
  run: ({ ms }) => new Promise((resolve) => setTimeout(() => resolve({}), ms)),
});

export const badResult = defineSkill({
  id: "test.bad_result",
  title: "Bad result",
  description: "Returns something its result schema refuses.",
  tags: ["test"],
  params: z.object({}),
  result: z.object({ n: z.number() }),
  annotations,
  examples: [],
  run: async () => ({ n: "not a number" }) as unknown as { n: number },
});

export const doubling = defineSkill({
  id: "test.doubling",
  title: "Doubling",
  description:
    "Returns a 1,000-character string doubled `times` times, the halves shared (as JMESPath's [@,@] does).",
  tags: ["test"],
  params: z.object({ times: z.number().int() }),
  result: z.object({ result: z.unknown() }),
  annotations,
  examples: [],
  run: async ({ times }) => {
    let value: unknown = "x".repeat(1000);
    for (let i = 0; i < times; i++) value = [value, value];
    return { result: value };
  },
});

export const counter = defineSkill({
  id: "test.count",
  title: "Count",
  description: "Counts its runs in memory, to prove a skill ran once.",
  tags: ["test"],
  params: z.object({ label: z.string() }),
  result: z.object({ runs: z.number() }),
  annotations: { ...annotations, readOnly: false, idempotent: false },
  examples: [],
  run: async ({ label }) => {
    const runs = (counts.get(label) ?? 0) + 1;
    counts.set(label, runs);
    return { runs };
  },
});
export const counts = new Map<string, number>();

/** Copies its context, as a skill may, and uses the copy's signal, messages and memory. */
export const contextCopy = defineSkill({
  id: "test.context_copy",
  title: "Context copy",
  description: "Uses a copy of its context.",
  tags: ["test"],
  params: z.object({}),
  result: z.object({ aborted: z.boolean(), sent: z.string(), remembered: z.unknown() }),
  annotations,
  examples: [],
  run: async (_params, ctx) => {
    const copy = { ...ctx };
    const sent = await copy.messages.send("ops", "copied");
    await copy.memory.set("k", "v");
    return { aborted: copy.signal.aborted, sent: sent.text, remembered: (await copy.memory.get("k"))?.value };
  },
});

/** Returns an object keyed by whatever keys it is given, "__proto__" among them. */
export const keyed = defineSkill({
  id: "test.keyed",
  title: "Keyed",
  description: "Returns one entry per key, each an object naming its key.",
  tags: ["test"],
  // Named like credentials (API keys), they name the entries.
  params: z.object({ keys: notSensitive(z.array(z.string())) }),
  result: z.object({ entries: z.record(z.string(), z.object({ key: z.string() })) }),
  annotations,
  examples: [],
  // Object.fromEntries defines each key, so "__proto__" is an own property, as JSON.parse makes it.
  run: async ({ keys }) => ({ entries: Object.fromEntries(keys.map((key) => [key, { key }])) }),
});

/** Labels of the latch runs waiting, and how to end each: which runs hold slots is the test's to decide. */
export const latchReleases = new Map<string, () => void>();

/** Runs until the test releases its label (`latchReleases`), or the run is aborted. */
export const latch = defineSkill({
  id: "test.latch",
  title: "Latch",
  description: "Waits until the test releases it.",
  tags: [],
  params: z.object({ label: z.string() }),
  result: z.object({ label: z.string() }),
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false, lightAsyncIo: true },
  examples: [],
  async run({ label }, ctx) {
    await new Promise<void>((resolve) => {
      latchReleases.set(label, resolve);
      ctx.signal.addEventListener("abort", () => resolve(), { once: true });
    });
    return { label };
  },
});

/** Returns, under a `z.any()` member, a value JSON cannot carry (audit 26 F1). */
export const notJson = defineSkill({
  id: "test.not_json",
  title: "Not JSON",
  description: "Returns a bigint, a cycle, a function, a Map or NaN where its result takes anything.",
  tags: ["test"],
  params: z.object({ value: z.enum(["bigint", "cycle", "function", "map", "nan", "date"]) }),
  result: z.object({ value: z.any() }),
  annotations,
  examples: [],
  run: async ({ value }) => {
    const cycle: Record<string, unknown> = { name: "loop" };
    cycle.self = cycle;
    const values = {
      bigint: { rows: [{ n: 10n }] },
      cycle,
      function: () => 1,
      map: new Map([["a", 1]]),
      nan: Number.NaN,
      date: new Date(Date.UTC(2026, 0, 2)),
    };
    return { value: values[value] };
  },
});

/** Throws an unexpected error whose message is the caller's text, as a driver quotes its URL. */
export const throwsText = defineSkill({
  id: "test.throws_text",
  title: "Throws text",
  description: "Throws an unexpected Error with the given message.",
  tags: ["test"],
  params: z.object({ message: z.string() }),
  result: z.object({}),
  annotations,
  examples: [],
  run: async ({ message }) => {
    throw new Error(message);
  },
});

export const testSkills = [
  echo,
  fail,
  sleep,
  stubborn,
  badResult,
  doubling,
  counter,
  contextCopy,
  notJson,
  throwsText,
];
