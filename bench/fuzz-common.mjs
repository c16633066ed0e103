// What the fuzzers (fuzz.mjs over REST, fuzz-mcp.mjs over MCP) share: random values, seeded
// so that a run can be repeated with FUZZ_SEED and biased towards what has broken parsers
// before; the catalog they draw skills from; and how they collect and print what they found.
import { fmt } from "./lib.mjs";

/** How long a fuzzer runs (s), and from how many clients at once. */
export const seconds = Number(process.env.BENCH_DURATION ?? 60);
export const clients = Number(process.env.FUZZ_CLIENTS ?? 8);

let seed = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
export const startSeed = seed;

/** mulberry32: a small seeded generator, so that a run can be repeated with FUZZ_SEED. */
export function random() {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
export const below = (n) => Math.floor(random() * n);
export const pick = (values) => values[below(values.length)];

// Texts that have broken parsers before: numbers out of range, JSON and CSV fragments,
// JSONPath for JMESPath, prototype names, lone surrogates, NUL, long runs, time oddities.
export const TEXTS = [
  ...["", " ", "a", "0", "-1", "1e309", "NaN", "null", "true", "__proto__", "constructor"],
  ...["\u0000", "\ud800", "😀".repeat(50), "x".repeat(10_000), "9".repeat(400), "ÿ", "\\", "'"],
  ...["2+3*4", "1/0", "sqrt(-1)", "e^1000", "factorial(1000)", "2^2^2^2^2", "det([[1,2],[3,4]])"],
  ...["[1,2", '{"a":1}', 'a,b\n1,2\n"3', "$.a[*]", "$..*", "a.b.c", "Europe/Nowhere", "a-b", "a/b"],
  ...["2024-02-30T25:61:00Z", "P1Y2M", "UTC", "+05:30", "12 kg to lb", "http://127.0.0.1/"],
  ...["file:///etc/passwd", "http://[::1]/", "sha256", "base64", "%%%", "x = 2", "f(x)=x^2"],
  ...["1:1e309", "-Infinity", "1e-309", "ones(1e3, 1e3)", "1:1e6"],
];
export const NUMBERS = [0, -1, 1.5, 2 ** 53, -(2 ** 53) - 10, 1e308, -1e-308, 30_000, 300_001, 59, 60, 61];
const KEYS = ["a", "b", "value", "text", "data", "query", "expression", "constructor"];

export function anyValue(depth = 0) {
  switch (below(depth > 2 ? 5 : 8)) {
    case 0:
      return pick(TEXTS);
    case 1:
      return pick(NUMBERS);
    case 2:
      return pick([true, false, null]);
    case 3:
      return pick(TEXTS) + pick(TEXTS);
    case 4:
      return below(1_000_000);
    case 5:
      return Array.from({ length: below(5) }, () => anyValue(depth + 1));
    default:
      return Object.fromEntries(Array.from({ length: below(5) }, () => [pick(KEYS), anyValue(depth + 1)]));
  }
}

/** Params for a skill: an example's with one member changed, or each param from its schema's type or anything. */
export function paramsFor(skill) {
  const examples = (skill.examples ?? []).filter((example) => example.params);
  if (examples.length > 0 && below(3) === 0) {
    const params = structuredClone(pick(examples).params);
    const names = Object.keys(params);
    if (names.length > 0 && below(3) > 0) params[pick(names)] = below(2) ? anyValue() : pick(TEXTS);
    return params;
  }
  const params = {};
  for (const [name, schema] of Object.entries(skill.params?.properties ?? {})) {
    if (below(5) === 0) continue;
    if (schema.enum && below(2)) params[name] = pick(schema.enum);
    else if (schema.type === "string" && below(2)) params[name] = pick(TEXTS);
    else params[name] = anyValue();
  }
  if (below(10) === 0) params[pick(TEXTS)] = anyValue();
  return params;
}

/** Every skill of the server's catalog, with its params' JSON Schema and examples (`GET /v1/skills`). */
export async function listSkills(sp) {
  const skills = [];
  let cursor = null;
  do {
    const query = `limit=100${cursor ? `&cursor=${cursor}` : ""}`;
    const page = await (await fetch(sp.url(`/v1/skills?${query}`), { headers: sp.headers })).json();
    skills.push(...page.data);
    cursor = page.next_cursor;
  } while (cursor);
  return skills;
}

/** The problems found (the first example of each kind, by where) and the slowest answers. */
export class Findings {
  problems = new Map();
  slowest = [];
  started = performance.now();

  problem(kind, where, example) {
    if (kind && !this.problems.has(`${kind} ${where}`))
      this.problems.set(`${kind} ${where}`, { kind, where, example });
  }

  /** An answer that took `ms`, asked at `at` (performance.now()). */
  answered(ms, at, where, example) {
    this.slowest.push({ ms, at: (at - this.started) / 1000, where, example: example?.slice(0, 120) });
    this.slowest.sort((a, b) => b.ms - a.ms).splice(8);
  }

  /** Prints the slowest answers and the problems; exit code 1 when there are problems. */
  print(slowestTitle) {
    console.log(slowestTitle);
    for (const { ms, at, where, example } of this.slowest)
      console.log(`  ${fmt(ms, 0).padStart(6)} ms at ${fmt(at, 1)} s  ${where}  ${example ?? ""}`);
    if (this.problems.size === 0) console.log("problems: none");
    else {
      console.log(`problems (${this.problems.size} kinds, first example of each):`);
      for (const { kind, where, example } of this.problems.values())
        console.log(`  ${kind}: ${where} ${example ?? ""}`);
      process.exitCode = 1;
    }
  }
}
