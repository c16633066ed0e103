import { describe, expect, it } from "vitest";
import { rankHits } from "../../src/core/discovery/rank-hits.js";

const candidate = (id: string, rank: number, score = Math.min(rank, 1)) => ({ id, rank, score });
const toMatch = (c: { rank: number }) => ({ lexical: c.rank, fields: {} });

describe("rankHits, the order of a discover answer in both modes", () => {
  it("puts a skill the query names first, with score 1, above any rank, even a full share or a large usage bonus", () => {
    const hits = rankHits(
      [candidate("full.share", 1), candidate("lifted", 9, 0.99), candidate("util.wait", 0.01)],
      3,
      new Set(["util.wait"]),
      toMatch,
    );
    expect(hits.map((hit) => hit.skill_id)).toEqual(["util.wait", "lifted", "full.share"]);
    expect(hits[0]).toEqual({
      skill_id: "util.wait",
      score: 1,
      match: { lexical: 0.01, fields: {}, named: true },
    });
    expect(hits[1]).toEqual({ skill_id: "lifted", score: 0.99, match: { lexical: 9, fields: {} } });
  });

  it("orders the named skills among themselves, then the rest, by rank, ties by id, and keeps `limit`", () => {
    const hits = rankHits(
      [
        candidate("b", 0.5),
        candidate("a", 0.5),
        candidate("A_b", 0.2),
        candidate("a.b", 0.7),
        candidate("c", 0.9),
      ],
      4,
      new Set(["a.b", "A_b"]),
      toMatch,
    );
    expect(hits.map((hit) => hit.skill_id)).toEqual(["a.b", "A_b", "c", "a"]);
    expect(rankHits([candidate("a", 1)], 0, new Set(), toMatch)).toEqual([]);
  });
});
