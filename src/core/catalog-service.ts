import type { DiscoverResponse, SkillDetail, SkillSummary } from "./answer-schemas.js";
import type { DiscoverRequest } from "./api-schemas.js";
import { decodeCursor, encodeCursor } from "./cursor.js";
import { discoverAnswerJson } from "./discover-answer-json.js";
import type { Discovery } from "./discovery/index.js";
import type { Caller, UsageLearning } from "./discovery/usage-learning.js";
import type { CatalogSkill, SkillRegistry } from "./skills/registry.js";

/**
 * A skill's summary, made once per catalog entry and frozen: `discoverAnswerJson` keeps the
 * JSON of each summary object, so answers share them rather than copy them.
 */
function toSkillSummary(entry: CatalogSkill): SkillSummary {
  let summary = summaries.get(entry);
  if (summary === undefined) {
    const { skill, paramsSchema } = entry;
    summary = Object.freeze({
      skill_id: skill.id,
      name: skill.title,
      description: skill.description,
      tags: skill.tags,
      params: paramsSchema,
    });
    summaries.set(entry, summary);
  }
  return summary;
}
const summaries = new WeakMap<CatalogSkill, SkillSummary>();

export function toSkillDetail(entry: CatalogSkill): SkillDetail {
  const { skill, resultSchema } = entry;
  return {
    ...toSkillSummary(entry),
    result: resultSchema,
    annotations: skill.annotations,
    examples: skill.examples,
  };
}

/** Finding and describing skills; open to read-only and full-access keys alike. */
export class CatalogService {
  constructor(
    private readonly registry: SkillRegistry,
    private readonly discovery: Discovery,
    /** Learning from use; absent when it is turned off. */
    private readonly learning?: UsageLearning,
  ) {}

  /**
   * Ranked skills for the request. With a `caller` (an API key), the caller's owner's
   * learned queries count as evidence, and the discover is noted with the skills it offered
   * so that an execution that follows can be learned from (learning from use); without one
   * (the dashboard), neither.
   */
  async discover(request: DiscoverRequest, caller?: Caller): Promise<DiscoverResponse> {
    const started = performance.now();
    const usage = caller && (await this.learning?.evidenceFor(caller.owner));
    const { hits, ranking } = await this.discovery.search(request.query, {
      limit: request.limit,
      tags: request.tags,
      usage,
      owner: caller?.owner,
    });
    const results = hits.flatMap(({ skill_id, score, match }) => {
      const entry = this.registry.get(skill_id);
      if (!entry) return [];
      // Member by member: V8 grows a spread copy, `{ ...summary, score, match }`, on a slow
      // path (Node 20: about 0.5 µs a member), for every result.
      const summary = toSkillSummary(entry);
      const { name, description, tags, params } = summary;
      // Significant digits, not decimals: a weak but real match must not round to 0.
      const shown = Number(score.toPrecision(4));
      return [{ skill_id: summary.skill_id, name, description, tags, params, score: shown, match }];
    });
    // Noted before the answer leaves, with the skills it offers: the execution the client
    // sends next, to whichever process, must find this discover in the store (learning from
    // use links the two).
    if (caller) {
      await this.learning?.noteDiscover(
        caller,
        request.query,
        results.map((result) => result.skill_id),
      );
    }
    return { query: request.query, results, took_ms: round(performance.now() - started, 3), ranking };
  }

  /** A discover answer of this catalog as JSON text, as `JSON.stringify` writes it, but faster. */
  answerJson(answer: DiscoverResponse): string {
    return discoverAnswerJson(answer, (skillId) => {
      const entry = this.registry.get(skillId);
      return entry && toSkillSummary(entry);
    });
  }

  list(limit: number, cursor?: string): { data: SkillDetail[]; next_cursor: string | null } {
    const after = cursor ? decodeCursor(cursor, "skills", ["id"] as const).id : undefined;
    const all = this.registry.list();
    const start = after === undefined ? 0 : all.findIndex((entry) => entry.skill.id > after);
    const page = start < 0 ? [] : all.slice(start, start + limit);
    const last = page.at(-1);
    const hasMore = start >= 0 && start + limit < all.length;
    return {
      data: page.map(toSkillDetail),
      next_cursor: hasMore && last ? encodeCursor("skills", { id: last.skill.id }) : null,
    };
  }

  get(skillId: string): SkillDetail {
    return toSkillDetail(this.registry.require(skillId));
  }
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
