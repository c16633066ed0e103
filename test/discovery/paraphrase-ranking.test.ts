import { describe, expect, it } from "vitest";
import { builtinSkills } from "../../skills/index.js";
import type { Discovery } from "../../src/core/discovery/registry-discovery.js";
import { AUDIT_QUERIES } from "./audit-queries.js";
import { builtinDiscoveries } from "./builtin-discoveries.js";
import { MEMORY_QUERIES } from "./memory-queries.js";
import { PARAPHRASE_QUERIES } from "./paraphrase-queries.js";
import { READ_ONLY_RECALL_QUERIES, RECALL_QUERIES } from "./recall-queries.js";

/** How well a discovery ranks a labelled set: how often the right skill comes first, in the top 3, and MRR. */
interface RankingQuality {
  queries: number;
  first: number;
  topThree: number;
  mrr: number;
}

async function rankingQuality(
  discovery: Discovery,
  mode: "lexical" | "hybrid",
  set: Record<string, string[]>,
): Promise<RankingQuality> {
  const quality = { queries: 0, first: 0, topThree: 0, mrr: 0 };
  for (const [skillId, queries] of Object.entries(set)) {
    for (const query of queries) {
      const { hits, ranking } = await discovery.search(query, { limit: builtinSkills.length });
      expect(ranking.mode).toBe(mode);
      const rank = hits.findIndex((hit) => hit.skill_id === skillId) + 1;
      quality.queries += 1;
      if (rank === 1) quality.first += 1;
      if (rank >= 1 && rank <= 3) quality.topThree += 1;
      if (rank >= 1) quality.mrr += 1 / rank;
    }
  }
  quality.mrr /= quality.queries;
  return quality;
}

function describeQuality(label: string, { queries, first, topThree, mrr }: RankingQuality): string {
  return `${label}: first ${first}/${queries}, top 3 ${topThree}/${queries}, MRR ${(mrr * 100).toFixed(1)}`;
}

// Audit 25, finding 1: requests worded the way users word them, not the way the skills
// describe themselves. In hybrid mode, before each skill's vector took in its example
// requests and fusion counted the lexical share itself, the right skill came first for 60
// of the 110 development requests (MRR 66.8) and 35 of the 44 held-out ones (MRR 86.3);
// after, 66 (71.7) and 39 (93.6). The held-out set was measured once, after tuning on the
// development set. The floors are a little below the figures reached, since a model run
// elsewhere may break a near tie differently.
const HELD_OUT_FLOOR = { first: 38, mrr: 0.9 };
// The memory skills' held-out set (memory-queries.ts: 19 requests to remember, recall,
// forget or list the user's facts, 11 near-misses for other skills), written before their
// texts said what they are for. Before: hybrid first 12/30, MRR 51.3; lexical 13/30, 49.1.
// After: 16/30, 66.5 and 13/30, 55.1. Floors a little below, as above.
const MEMORY_FLOOR = { hybrid: { first: 15, mrr: 0.64 }, lexical: { first: 13, mrr: 0.54 } };
// The auditor's memory questions (recall-queries.ts, audit 25 finding 3). Before their texts
// said what each memory skill is not for: hybrid first 0/8, MRR 35.1, memory.delete first for
// "what is my favourite color" and "what do you know about me"; lexical 1/8, 33.9.
const RECALL_FLOOR = { hybrid: { first: 2, mrr: 0.5 }, lexical: { first: 3, mrr: 0.5 } };
describe("ranking of the built-in skills for requests worded unlike their descriptions", () => {
  const discoveries = builtinDiscoveries();

  it("has at least four development requests for every built-in skill, and held-out ones only for built-in skills", () => {
    const ids = builtinSkills.map((skill) => skill.id).sort();
    expect(Object.keys(PARAPHRASE_QUERIES).sort()).toEqual(ids);
    for (const id of ids) expect(PARAPHRASE_QUERIES[id]?.length, id).toBeGreaterThanOrEqual(4);
    for (const id of Object.keys(AUDIT_QUERIES)) expect(ids).toContain(id);
    for (const id of Object.keys(MEMORY_QUERIES)) expect(ids).toContain(id);
  });

  it("ranks the right skill first for most development requests in hybrid mode", async () => {
    const quality = await rankingQuality(discoveries.hybrid, "hybrid", PARAPHRASE_QUERIES);
    console.info(describeQuality("paraphrase (dev), hybrid", quality));
    expect(quality.first).toBeGreaterThanOrEqual(64);
    expect(quality.mrr).toBeGreaterThanOrEqual(0.7);
  }, 60_000);

  it("ranks the right skill first for the held-out requests in hybrid mode", async () => {
    const quality = await rankingQuality(discoveries.hybrid, "hybrid", AUDIT_QUERIES);
    console.info(describeQuality("audit (held out), hybrid", quality));
    expect(quality.first).toBeGreaterThanOrEqual(HELD_OUT_FLOOR.first);
    expect(quality.mrr).toBeGreaterThanOrEqual(HELD_OUT_FLOOR.mrr);
  }, 60_000);

  it("ranks the memory skills first for requests about the user's facts, and other skills for near-misses", async () => {
    const hybrid = await rankingQuality(discoveries.hybrid, "hybrid", MEMORY_QUERIES);
    const lexical = await rankingQuality(discoveries.lexical, "lexical", MEMORY_QUERIES);
    console.info(describeQuality("memory (held out), hybrid", hybrid));
    console.info(describeQuality("memory (held out), lexical", lexical));
    expect(hybrid.first).toBeGreaterThanOrEqual(MEMORY_FLOOR.hybrid.first);
    expect(hybrid.mrr).toBeGreaterThanOrEqual(MEMORY_FLOOR.hybrid.mrr);
    expect(lexical.first).toBeGreaterThanOrEqual(MEMORY_FLOOR.lexical.first);
    expect(lexical.mrr).toBeGreaterThanOrEqual(MEMORY_FLOOR.lexical.mrr);
  }, 60_000);

  it("ranks the memory skill a question means first, and never memory.delete for a question that only reads (audit 25, finding 3)", async () => {
    for (const [mode, discovery] of [
      ["hybrid", discoveries.hybrid],
      ["lexical", discoveries.lexical],
    ] as const) {
      const quality = await rankingQuality(discovery, mode, RECALL_QUERIES);
      console.info(describeQuality(`recall (auditor's questions), ${mode}`, quality));
      const deleteFirst: string[] = [];
      for (const query of READ_ONLY_RECALL_QUERIES) {
        const { hits } = await discovery.search(query, { limit: 3 });
        if (hits[0]?.skill_id === "memory.delete") deleteFirst.push(query);
      }
      expect(deleteFirst, mode).toEqual([]);
      expect(quality.first, mode).toBeGreaterThanOrEqual(RECALL_FLOOR[mode].first);
      expect(quality.mrr, mode).toBeGreaterThanOrEqual(RECALL_FLOOR[mode].mrr);
    }
  }, 60_000);

  it("holds lexical mode's figures on both sets", async () => {
    const development = await rankingQuality(discoveries.lexical, "lexical", PARAPHRASE_QUERIES);
    const heldOut = await rankingQuality(discoveries.lexical, "lexical", AUDIT_QUERIES);
    console.info(describeQuality("paraphrase (dev), lexical", development));
    console.info(describeQuality("audit (held out), lexical", heldOut));
    expect(development.first).toBeGreaterThanOrEqual(45);
    expect(heldOut.first).toBeGreaterThanOrEqual(37);
  });
});
