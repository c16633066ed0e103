import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { apiRequest, bodyOf, type CreatedKey, dashboardSession, serverForSuite } from "./harness.js";

const ADMIN_TOKEN = "contract-admin-token-0123456789";
const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");

interface DiscoverResponse {
  results: { skill_id: string; score: number; match: { usage?: unknown } }[];
}

// Audit 22, discovery #8: README said the dashboard's search gives "exactly what an agent
// would get", but the dashboard acts for no owner, so an owner's learned queries, which an
// agent of that owner gets, never count there. The docs and the page now say which answer
// the dashboard shows: discovery before any learning from use.
describe("the dashboard's skill search", () => {
  const server = serverForSuite({
    env: { SKILLPORT_ADMIN_TOKEN: ADMIN_TOKEN, SKILLPORT_DISCOVERY_MODE: "lexical" },
  });

  const discover = async (key: CreatedKey, query: string) => {
    const res = await server().request("POST", "/v1/discover", {
      key: key.secret,
      json: { query, limit: 5 },
    });
    expect(res.status, res.text).toBe(200);
    return bodyOf<DiscoverResponse>(res).results;
  };
  it("shows discovery before learning from use, and says so where the README once said 'exactly what an agent would get'", async () => {
    const alice = await server().createRoomyKey({ owner: "alice" });
    const bob = await server().createRoomyKey({ owner: "bob" });
    const query = "what time is it now";
    expect((await discover(alice, query))[0]?.skill_id).toBe("time.now");
    const run = await server().request("POST", "/v1/execute", {
      key: alice.secret,
      json: { skill_id: "time.now", params: {} },
    });
    expect(run.status, run.text).toBe(200);

    // Alice's agent now gets time.now lifted by her use; bob's, and the dashboard, do not.
    const aliceAfter = (await discover(alice, query)).find((result) => result.skill_id === "time.now");
    const bobAfter = (await discover(bob, query)).find((result) => result.skill_id === "time.now");
    expect(aliceAfter?.match.usage).toBeDefined();
    expect(bobAfter?.match.usage).toBeUndefined();
    expect(aliceAfter?.score).toBeGreaterThan(bobAfter?.score ?? 1);

    const page = await apiRequest(
      server().baseUrl,
      "GET",
      `/dashboard/skills?q=${encodeURIComponent(query)}`,
      {
        headers: { cookie: await dashboardSession(server().baseUrl, ADMIN_TOKEN) },
      },
    );
    expect(page.status).toBe(200);
    const shown = /<span class="score"[^>]*>([\d.]+)<\/span>/.exec(page.text)?.[1];
    expect(shown).toBe(bobAfter?.score.toFixed(2));
    expect(page.text).toContain("for an owner with nothing learned from use");
    expect(readme).not.toMatch(/exactly what an agent\s+would get/);
    expect(readme).toMatch(/what an agent would get before any\s+learning from use/);
  });
});
