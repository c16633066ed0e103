import { describe, expect, it } from "vitest";
import { builtinSkills } from "../../skills/index.js";
import type { Discovery } from "../../src/core/discovery/registry-discovery.js";
import { builtinDiscoveries } from "./builtin-discoveries.js";
import { MEMORY_HELDOUT_S26, SAVE_OR_READ_HELDOUT_S26 } from "./memory-heldout-s26.js";

async function firstAndMrr(discovery: Discovery, set: Record<string, string[]>) {
  let queries = 0;
  let first = 0;
  let reciprocal = 0;
  for (const [skillId, requests] of Object.entries(set)) {
    for (const query of requests) {
      const { hits } = await discovery.search(query, { limit: builtinSkills.length });
      const rank = hits.findIndex((hit) => hit.skill_id === skillId) + 1;
      queries += 1;
      if (rank === 1) first += 1;
      if (rank >= 1) reciprocal += 1 / rank;
    }
  }
  return { queries, first, mrr: reciprocal / queries };
}

const DESTRUCTIVE = new Set(
  builtinSkills.filter((skill) => skill.annotations?.destructive).map((skill) => skill.id),
);

// The held-out set of session 26 (memory-heldout-s26.ts: 28 requests to remember, recall,
// forget or list the user's facts, many holding an email address, a phone number, a URL or
// a date, and 12 near-misses with the same kinds of data for other skills), measured once
// before and once after requests' addresses stopped counting as words (text-analysis.ts,
// withoutAddresses). Before: hybrid first 20/40, MRR 64.9; lexical 24/40, 69.5. After:
// hybrid 20/40, 66.1; lexical 25/40, 71.7. Lexical mode is exact; hybrid's MRR floor is a
// little below, since a model run elsewhere may break a near tie differently.
const FLOOR = { hybrid: { first: 20, mrr: 0.65 }, lexical: { first: 25, mrr: 0.71 } };
// Requests that only save or read for which a destructive skill still comes first (left
// open): the semantic model reads the URL as a request to fetch it, and hears "save" and
// "forget" about the same fact as the same request. None may be added.
const KNOWN_DESTRUCTIVE_FIRST: Record<"hybrid" | "lexical", string[]> = {
  hybrid: ["store my website https://janedoe.dev for next time", "save that my manager is called Ines"],
  lexical: ["what was the website I asked you to remember?"],
};

describe("ranking of the memory skills for plainly worded requests holding the user's data (session 26)", () => {
  const discoveries = builtinDiscoveries();
  const modes = () =>
    [
      ["hybrid", discoveries.hybrid],
      ["lexical", discoveries.lexical],
    ] as const;

  it("holds the held-out set's figures in both modes", async () => {
    for (const [mode, discovery] of modes()) {
      const quality = await firstAndMrr(discovery, MEMORY_HELDOUT_S26);
      console.info(
        `memory held-out (s26), ${mode}: first ${quality.first}/${quality.queries}, MRR ${(quality.mrr * 100).toFixed(1)}`,
      );
      expect(quality.queries).toBe(40);
      expect(quality.first, mode).toBeGreaterThanOrEqual(FLOOR[mode].first);
      expect(quality.mrr, mode).toBeGreaterThanOrEqual(FLOOR[mode].mrr);
    }
  }, 60_000);

  it("ranks no destructive skill but the one that saves first for a request that only saves or reads", async () => {
    for (const [mode, discovery] of modes()) {
      const destructiveFirst: string[] = [];
      for (const [skillId, requests] of Object.entries(SAVE_OR_READ_HELDOUT_S26)) {
        for (const query of requests) {
          const top = (await discovery.search(query, { limit: 3 })).hits[0]?.skill_id;
          if (top !== undefined && top !== skillId && DESTRUCTIVE.has(top)) destructiveFirst.push(query);
        }
      }
      for (const query of destructiveFirst) expect(KNOWN_DESTRUCTIVE_FIRST[mode], mode).toContain(query);
    }
  }, 60_000);

  it("does not rank http.request first for a request whose only link to it is an email address's host", async () => {
    for (const [mode, discovery] of modes()) {
      for (const query of [
        "remember my email is bob@example.com",
        "base64-encode my email bob@example.com",
      ]) {
        const { hits } = await discovery.search(query, { limit: 3 });
        expect(hits[0]?.skill_id, `${mode}: ${query}`).not.toBe("http.request");
      }
    }
  }, 60_000);

  it("still ranks http.request first for a request to fetch a URL", async () => {
    for (const [mode, discovery] of modes()) {
      for (const query of [
        "fetch https://api.example.com/users",
        "fetch https://example.com/api",
        "curl https://status.example.org",
      ]) {
        const { hits } = await discovery.search(query, { limit: 3 });
        expect(hits[0]?.skill_id, `${mode}: ${query}`).toBe("http.request");
      }
    }
  }, 60_000);
});
