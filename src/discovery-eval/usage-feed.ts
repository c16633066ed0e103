import { ManualClock } from "../core/clock.js";
import type { DiscoveryIndex } from "../core/discovery/discovery-index.js";
import type { LabelledQuery } from "../core/discovery/evaluate.js";
import { type Caller, OFFERED_RANKS, UsageLearning } from "../core/discovery/usage-learning.js";
import { silentLogger } from "../core/logger.js";
import type { LearnedQueryStore } from "../core/ports.js";

/** How the labelled queries are divided between usage fed and queries evaluated. */
export type UsageSplit = "even-odd" | "odd-even";

export const USAGE_SPLITS: readonly UsageSplit[] = ["even-odd", "odd-even"];

/**
 * `even-odd`: queries on even-numbered lines (0, 2, …) are fed as usage, the others
 * evaluated; `odd-even` the reverse. Never the same query in both halves.
 */
export function splitQueries(
  queries: readonly LabelledQuery[],
  split: UsageSplit,
): { fed: LabelledQuery[]; evaluated: LabelledQuery[] } {
  const fedParity = split === "even-odd" ? 0 : 1;
  return {
    fed: queries.filter((_, index) => index % 2 === fedParity),
    evaluated: queries.filter((_, index) => index % 2 !== fedParity),
  };
}

/** The one owner (and key) the evaluation feeds and then searches as. */
export const EVALUATION_CALLER: Caller = { id: "key_evaluation", owner: "evaluation" };

export interface FeedSummary {
  /** Queries fed (each one discover). */
  discovers: number;
  /** Results per discover. */
  discoverLimit: number;
  /** Executions fed: one per relevant skill of each fed query. */
  executions: number;
  /**
   * Executions learned from, as the store counted them: those of a skill the discover had
   * offered, and the first after each discover whatever its skill (later ones of a skill
   * not offered teach nothing).
   */
  learned: number;
  /** Executions of a skill the discover had offered, in its first `OFFERED_RANKS` (all learned from). */
  offered: number;
}

/**
 * Feeds usage through the learning code the service runs: for each fed query, a discover
 * as `POST /v1/discover` makes it (with the evidence learned so far, then noted with the
 * skills it offered), and an execution of each relevant skill a second later, as
 * `POST /v1/execute` reports it.
 */
export async function feedUsage(
  index: DiscoveryIndex,
  store: LearnedQueryStore,
  fed: readonly LabelledQuery[],
  discoverLimit: number,
): Promise<{ learning: UsageLearning; summary: FeedSummary }> {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  // Counts the links the learning code actually recorded (not what the rule would predict).
  let learned = 0;
  const counting: LearnedQueryStore = {
    noteDiscovers: (notes) => store.noteDiscovers(notes),
    lastDiscover: (keyId) => store.lastDiscover(keyId),
    claimFirstExecution: (keyId, discoveredAt) => store.claimFirstExecution(keyId, discoveredAt),
    record: async (event, caps) => {
      const counted = await store.record(event, caps);
      if (counted) learned += 1;
      return counted;
    },
    list: (owner, limit) => store.list(owner, limit),
    deleteNotesBefore: (beforeMs) => store.deleteNotesBefore(beforeMs),
    forget: (owner, skillId) => store.forget(owner, skillId),
  };
  const learning = new UsageLearning(counting, index.semantic, clock, silentLogger, {
    windowMs: 5 * 60_000,
    // Nothing else writes this store: the evidence in memory is always current.
    refreshMs: Number.POSITIVE_INFINITY,
  });
  let offered = 0;
  let executions = 0;
  for (const { query, relevant } of fed) {
    const usage = await learning.evidenceFor(EVALUATION_CALLER.owner);
    // With the owner, as `CatalogService.discover` searches: the query's vector is then kept
    // for the learning that follows, which takes it only if at hand.
    const { hits } = await index.search(query, {
      limit: discoverLimit,
      usage,
      owner: EVALUATION_CALLER.owner,
    });
    // As `CatalogService.discover` notes it: with the skills its answer offered.
    await learning.noteDiscover(
      EVALUATION_CALLER,
      query,
      hits.map((hit) => hit.skill_id),
    );
    clock.advance(1_000);
    for (const skillId of relevant) {
      await learning.noteExecution(EVALUATION_CALLER, skillId);
      executions += 1;
      if (hits.slice(0, OFFERED_RANKS).some((hit) => hit.skill_id === skillId)) offered += 1;
    }
    clock.advance(1_000);
  }
  await learning.idle();
  return { learning, summary: { discovers: fed.length, discoverLimit, executions, learned, offered } };
}
