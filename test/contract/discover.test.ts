import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bodyOf,
  type CreatedKey,
  expectDetails,
  expectError,
  type Json,
  startServer,
  stopExpectingNoErrors,
  type TestServer,
} from "./harness.js";

interface DiscoverResult {
  skill_id: string;
  name: string;
  description: string;
  score: number;
  tags: string[];
  params: Json & { properties?: Json };
}

interface DiscoverResponse {
  query: string;
  results: DiscoverResult[];
  took_ms: number;
}

interface SkillDetail {
  skill_id: string;
  name: string;
  description: string;
  tags: string[];
  params: Json & { properties?: Json };
  result: Json & { properties?: Json };
  annotations: Json;
  examples?: { query: string; params: Json }[];
}

interface SkillPage {
  data: SkillDetail[];
  next_cursor: string | null;
}

// contract.md, "POST /v1/discover" and "Skill resources".
describe("contract: discovery and the catalog", () => {
  let server: TestServer;
  let readOnly: CreatedKey;

  beforeAll(async () => {
    server = await startServer();
    readOnly = await server.createRoomyKey({ name: "discover", scope: "read-only" });
  });
  afterAll(() => stopExpectingNoErrors(server));

  const discover = (json: unknown) => server.request("POST", "/v1/discover", { key: readOnly.secret, json });

  describe("POST /v1/discover", () => {
    it("ranks message.send first for 'send a message to a channel', with the documented result fields", async () => {
      const query = "send a message to a channel";
      const res = await discover({ query });
      expect(res.status, res.text).toBe(200);
      const body = bodyOf<DiscoverResponse>(res);
      expect(body.query).toBe(query);
      expect(body.took_ms).toBeTypeOf("number");
      expect(body.took_ms).toBeGreaterThanOrEqual(0);
      expect(body.results[0]?.skill_id).toBe("message.send");
      expect(body.results.length).toBeGreaterThan(0);
      expect(body.results.length).toBeLessThanOrEqual(10);
      for (const result of body.results) {
        expect(result.skill_id).toBeTypeOf("string");
        expect(result.name).toBeTypeOf("string");
        expect(result.description).toBeTypeOf("string");
        expect(result.score).toBeTypeOf("number");
        expect(Array.isArray(result.tags)).toBe(true);
        for (const tag of result.tags) expect(tag).toBeTypeOf("string");
        expect(result.params).toBeTypeOf("object");
        expect(result.params.type).toBe("object");
        expect(result.params.properties).toBeTypeOf("object");
      }
      // Best first.
      const scores = body.results.map((r) => r.score);
      expect(scores).toEqual([...scores].sort((a, b) => b - a));
      expect(Object.keys(body.results[0]?.params.properties ?? {})).toEqual(
        expect.arrayContaining(["channel", "text"]),
      );
    });

    it("a result's params schema is enough to call POST /v1/execute without another round trip", async () => {
      const full = await server.createRoomyKey({ name: "discover-full" });
      const [top] = bodyOf<DiscoverResponse>(await discover({ query: "evaluate a math expression" })).results;
      expect(top?.skill_id).toBe("math.evaluate");
      const ajv = new Ajv2020({ strict: false });
      addFormats.default(ajv);
      const validate = ajv.compile(top?.params ?? {});
      const params = { expression: "6*7" };
      expect(validate(params), JSON.stringify(validate.errors)).toBe(true);
      expect(validate({})).toBe(false);
      const res = await server.request("POST", "/v1/execute", {
        key: full.secret,
        json: { skill_id: top?.skill_id, params },
      });
      expect(res.status, res.text).toBe(200);
      expect(bodyOf<{ result: Json }>(res).result.value).toBe(42);
    });

    it("respects limit (1–50)", async () => {
      for (const limit of [1, 3]) {
        const body = bodyOf<DiscoverResponse>(await discover({ query: "message", limit }));
        expect(body.results.length).toBeLessThanOrEqual(limit);
        expect(body.results.length).toBeGreaterThan(0);
      }
      expect((await discover({ query: "message", limit: 50 })).status).toBe(200);
    });

    // contract.md: `limit` defaults to 10. A query matching more than ten skills, so that a
    // default of another size would show.
    it("answers 10 results when limit is omitted and more skills match", async () => {
      const query = "convert text json time hash message math wait uuid csv encode";
      const all = bodyOf<DiscoverResponse>(await discover({ query, limit: 50 })).results;
      expect(all.length).toBeGreaterThan(10);
      const byDefault = bodyOf<DiscoverResponse>(await discover({ query })).results;
      expect(byDefault.map((r) => r.skill_id)).toEqual(all.slice(0, 10).map((r) => r.skill_id));
    });

    it.each([0, 51, 2.5, "3"])("refuses limit = %j with 400 invalid_request", async (limit) => {
      const error = expectError(await discover({ query: "message", limit }), 400, "invalid_request");
      expect(expectDetails(error).map((d) => d.path)).toContain("limit");
    });

    it("accepts a query of 1000 characters and refuses 1001 or none", async () => {
      expect((await discover({ query: "a".repeat(1000) })).status).toBe(200);
      const tooLong = expectError(await discover({ query: "a".repeat(1001) }), 400, "invalid_request");
      expect(expectDetails(tooLong).map((d) => d.path)).toContain("query");
      expectError(await discover({ query: "" }), 400, "invalid_request");
      expectError(await discover({}), 400, "invalid_request");
      expectError(await discover({ query: 42 }), 400, "invalid_request");
    });

    it("filters by tags: every result has the tags asked for", async () => {
      const all = bodyOf<DiscoverResponse>(await discover({ query: "send a message", limit: 50 }));
      expect(all.results.some((r) => !r.tags.includes("math"))).toBe(true);
      const res = await discover({ query: "send a message", tags: ["math"], limit: 50 });
      expect(res.status, res.text).toBe(200);
      const filtered = bodyOf<DiscoverResponse>(res).results;
      for (const result of filtered) expect(result.tags).toContain("math");
      expect(filtered.map((r) => r.skill_id)).not.toContain("message.send");
      const chat = bodyOf<DiscoverResponse>(
        await discover({ query: "send a message", tags: ["chat"] }),
      ).results;
      expect(chat[0]?.skill_id).toBe("message.send");
    });

    it("refuses tags that are not an array of strings", async () => {
      expectError(await discover({ query: "x", tags: "math" }), 400, "invalid_request");
      expectError(await discover({ query: "x", tags: [1] }), 400, "invalid_request");
    });

    it("answers a query that matches nothing with an empty result list", async () => {
      const res = await discover({ query: "zzqxjv qqqzzv" });
      expect(res.status).toBe(200);
      expect(bodyOf<DiscoverResponse>(res).results).toEqual([]);
    });
  });

  describe("GET /v1/skills", () => {
    it("pages through the whole catalog with limit and next_cursor, no gaps or repeats", async () => {
      const whole = await server.request("GET", "/v1/skills?limit=100", { key: readOnly.secret });
      expect(whole.status).toBe(200);
      const everything = bodyOf<SkillPage>(whole);
      const allIds = everything.data.map((s) => s.skill_id);
      expect(allIds).toEqual(
        expect.arrayContaining(["message.send", "message.list", "math.evaluate", "util.wait"]),
      );
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const path: string = `/v1/skills?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
        const res = await server.request("GET", path, { key: readOnly.secret });
        expect(res.status, res.text).toBe(200);
        const page = bodyOf<SkillPage>(res);
        expect(page.data.length).toBeLessThanOrEqual(2);
        seen.push(...page.data.map((s) => s.skill_id));
        cursor = page.next_cursor;
        pages++;
      } while (cursor !== null && pages < 200);
      expect(seen).toEqual(allIds);
      expect(new Set(seen).size).toBe(seen.length);
      expect(pages).toBe(Math.ceil(allIds.length / 2));
    });

    it("every skill's params schema accepts its own examples", async () => {
      const everything = bodyOf<SkillPage>(
        await server.request("GET", "/v1/skills?limit=100", { key: readOnly.secret }),
      );
      const ajv = new Ajv2020({ strict: false });
      addFormats.default(ajv);
      for (const skill of everything.data) {
        const validate = ajv.compile(skill.params);
        for (const example of skill.examples ?? []) {
          expect(validate(example.params), `${skill.skill_id}: ${JSON.stringify(validate.errors)}`).toBe(
            true,
          );
        }
        ajv.compile(skill.result);
      }
    });

    it("refuses a bad limit or cursor with 400", async () => {
      for (const query of ["?limit=0", "?limit=101", "?cursor=%25%25"]) {
        expectError(
          await server.request("GET", `/v1/skills${query}`, { key: readOnly.secret }),
          400,
          "invalid_request",
        );
      }
    });

    it("GET /v1/skills/message.send has params and result schemas and annotations", async () => {
      const res = await server.request("GET", "/v1/skills/message.send", { key: readOnly.secret });
      expect(res.status, res.text).toBe(200);
      const skill = bodyOf<SkillDetail>(res);
      expect(skill.skill_id).toBe("message.send");
      expect(skill.name).toBeTypeOf("string");
      expect(skill.description).toBeTypeOf("string");
      expect(Object.keys(skill.params.properties ?? {})).toEqual(expect.arrayContaining(["channel", "text"]));
      expect(Object.keys(skill.result.properties ?? {})).toEqual(
        expect.arrayContaining(["message_id", "status"]),
      );
      expect(skill.annotations).toBeTypeOf("object");
      expect(Object.keys(skill.annotations).length).toBeGreaterThan(0);
    });

    it("GET /v1/skills/{unknown} is 404 skill_not_found", async () => {
      expectError(
        await server.request("GET", "/v1/skills/message.nope", { key: readOnly.secret }),
        404,
        "skill_not_found",
      );
    });
  });
});
