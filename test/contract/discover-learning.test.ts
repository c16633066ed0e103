import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Database } from "../../src/store/sqlite/driver.js";
import { connectMcp } from "../mcp/mcp-clients.js";
import { bodyOf, type CreatedKey, type Json, runCli, serverForSuite, startServer } from "./harness.js";

interface DiscoveredSkill {
  skill_id: string;
  score: number;
  match: Json & { usage?: { query: string; count: number; lexical: number } };
}

interface DiscoverResponse {
  results: DiscoveredSkill[];
}

// Learning from use (issue 6) on the real server: REST and MCP both feed it.
describe("discovery learns from use, per owner", () => {
  const server = serverForSuite();

  const discover = async (key: CreatedKey, query: string, limit?: number) => {
    const res = await server().request("POST", "/v1/discover", {
      key: key.secret,
      json: { query, ...(limit !== undefined && { limit }) },
    });
    expect(res.status, res.text).toBe(200);
    return bodyOf<DiscoverResponse>(res).results;
  };
  const execute = async (key: CreatedKey, skillId: string, params: Json) => {
    const res = await server().request("POST", "/v1/execute", {
      key: key.secret,
      json: { skill_id: skillId, params },
    });
    expect(res.status, res.text).toBe(200);
  };
  /** What the owner's use taught, as `skillport learning list` shows it. */
  const learned = async (owner: string) => {
    const listed = await runCli([
      "learning",
      "list",
      "--owner",
      owner,
      "--json",
      "--data-dir",
      server().dataDir,
    ]);
    expect(listed.code, listed.stderr).toBe(0);
    return (JSON.parse(listed.stdout) as { skill_id: string; query: string; count: number }[]).map(
      ({ skill_id, query, count }) => ({ skill_id, query, count }),
    );
  };

  it("ranks the executed skill higher for a later similar discover of the same owner, never for another", async () => {
    const alice = await server().createRoomyKey({ owner: "alice" });
    const aliceReader = await server().createRoomyKey({ owner: "alice", scope: "read-only" });
    const bob = await server().createRoomyKey({ owner: "bob" });
    const query = "time in another zone";
    const similar = "the time in another zone, please";
    const bobBefore = await discover(bob, similar);

    const offered = await discover(alice, query);
    expect(offered[0]?.skill_id).not.toBe("time.now");
    const rankBefore = offered.findIndex((result) => result.skill_id === "time.now");
    expect(rankBefore).toBeGreaterThan(0);
    await execute(alice, "time.now", { timezone: "Asia/Tokyo" });

    const after = await discover(alice, similar);
    expect(after[0]?.skill_id).toBe("time.now");
    expect(after[0]?.match.usage).toMatchObject({ query, count: 1 });
    // Evidence is the owner's: alice's other key has it too; bob's ranking is exactly as before.
    expect((await discover(aliceReader, similar))[0]?.skill_id).toBe("time.now");
    expect(await discover(bob, similar)).toEqual(bobBefore);
  });

  it("learns nothing from the README walkthrough's next step: a skill the discover did not offer, run after the one it did", async () => {
    const erin = await server().createRoomyKey({ owner: "erin" });
    const query = "send a message to a channel";
    const offered = await discover(erin, query, 3);
    expect(offered[0]?.skill_id).toBe("message.send");
    expect(offered.map((result) => result.skill_id)).not.toContain("util.wait");
    await execute(erin, "message.send", { channel: "general", text: "hello" });
    await execute(erin, "util.wait", { ms: 10 });
    expect(await learned("erin")).toEqual([{ skill_id: "message.send", query, count: 1 }]);

    const after = await discover(erin, query, 3);
    expect(after[0]).toMatchObject({ skill_id: "message.send", match: { usage: { query, count: 1 } } });
    expect(after.map((result) => result.skill_id)).not.toContain("util.wait");
  });

  it("shows what an owner's use taught (skillport learning list) and forgets it (learning forget)", async () => {
    const dave = await server().createRoomyKey({ owner: "dave" });
    const query = "what day is it in Lima";
    const uuidQuery = "make me a unique id";
    await discover(dave, query);
    await execute(dave, "time.now", { timezone: "America/Lima" });
    await discover(dave, uuidQuery);
    await execute(dave, "id.uuid", {});
    const dataDir = ["--data-dir", server().dataDir];
    expect(await learned("dave")).toEqual(
      expect.arrayContaining([
        { skill_id: "time.now", query, count: 1 },
        { skill_id: "id.uuid", query: uuidQuery, count: 1 },
      ]),
    );

    const one = await runCli(["learning", "forget", "--owner", "dave", "--skill", "id.uuid", ...dataDir]);
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).toContain("Forgot 1 learned query of dave");
    expect(await learned("dave")).toEqual([{ skill_id: "time.now", query, count: 1 }]);
    const all = await runCli(["learning", "forget", "--owner", "dave", ...dataDir]);
    expect(all.code, all.stderr).toBe(0);
    expect(await learned("dave")).toEqual([]);

    // A process that reads the owner's evidence afresh finds none.
    const another = await startServer({ dataDir: server().dataDir });
    try {
      const res = await another.request("POST", "/v1/discover", { key: dave.secret, json: { query } });
      expect(res.status, res.text).toBe(200);
      expect(bodyOf<DiscoverResponse>(res).results.some((result) => result.match.usage)).toBe(false);
    } finally {
      await another.stop();
    }
  });

  it("links a discover answered by one server to an execution sent at once to another on the same data dir, never to the key's previous discover", async () => {
    const frank = await server().createRoomyKey({ owner: "frank" });
    const another = await startServer({ dataDir: server().dataDir });
    try {
      const pairs = [
        { query: "what time is it in Tokyo", skill_id: "time.now", params: { timezone: "Asia/Tokyo" } },
        { query: "generate a uuid", skill_id: "id.uuid", params: {} },
        {
          query: "days between two dates",
          skill_id: "time.diff",
          params: { start: "2024-01-01", end: "2024-03-01" },
        },
      ];
      // Alternating replicas, as a balancer may send them; no pause between the two calls.
      for (const [index, { query, skill_id, params }] of pairs.entries()) {
        const [discovering, executing] = index % 2 === 0 ? [server(), another] : [another, server()];
        const found = await discovering.request("POST", "/v1/discover", {
          key: frank.secret,
          json: { query },
        });
        expect(found.status, found.text).toBe(200);
        const ran = await executing.request("POST", "/v1/execute", {
          key: frank.secret,
          json: { skill_id, params },
        });
        expect(ran.status, ran.text).toBe(200);
      }
      // Linked to the previous discover, the second and third were learned off by one.
      expect(await learned("frank")).toEqual(
        expect.arrayContaining(pairs.map(({ query, skill_id }) => ({ skill_id, query, count: 1 }))),
      );
      expect(await learned("frank")).toHaveLength(pairs.length);
    } finally {
      await another.stop();
    }
  });

  it("never keeps a secret written into a query, nor shows one learned before to the owner's other keys (audit 26 #1)", async () => {
    const gina = await server().createRoomyKey({ owner: "gina" });
    const ginaReader = await server().createRoomyKey({ owner: "gina", scope: "read-only" });
    await discover(gina, `hash this text with my key ${gina.secret}`);
    await execute(gina, "crypto.hash", { text: "x" });
    await discover(
      gina,
      "fetch https://api.example.com/v1/data?api_key=DISCSECRET123 with Bearer ghp_DISCTOKEN9",
    );
    await execute(gina, "id.uuid", {});
    expect(await learned("gina")).toEqual([]);

    // A query learned by an earlier version, secret and all.
    const db = new Database(join(server().dataDir, "skillport.db"));
    try {
      db.prepare(
        `insert into learned_queries (owner, skill_id, query, count, last_at_ms, last_discover_ms)
         values ('gina', 'crypto.hash', ?, 1, ?, ?)`,
      ).run(`hash text with my key ${gina.secret}`, Date.now(), Date.now());
    } finally {
      db.close();
    }
    // Shown masked to the operator, who can forget it; never to a key.
    expect(await learned("gina")).toEqual([
      { skill_id: "crypto.hash", query: "hash text with my key sk_[redacted]", count: 1 },
    ]);
    const other = await startServer({ dataDir: server().dataDir });
    try {
      const res = await other.request("POST", "/v1/discover", {
        key: ginaReader.secret,
        json: { query: "hash text" },
      });
      expect(res.status, res.text).toBe(200);
      expect(res.text).not.toContain(gina.secret);
      const mcp = await connectMcp("http", other, ginaReader.secret);
      try {
        const found = await mcp.client.callTool({
          name: "discover_skills",
          arguments: { query: "hash text" },
        });
        expect(JSON.stringify(found)).not.toContain(gina.secret);
      } finally {
        await mcp.close();
      }
    } finally {
      await other.stop();
    }
  });

  it("learning list and forget need an owner", async () => {
    const missing = await runCli(["learning", "forget", "--data-dir", server().dataDir]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("--owner OWNER");
  });

  // An owner no key can have was looked up as given, and answered "Nothing learned", as a
  // skill that was named was not said: both read as if the owner had learned nothing at all.
  it("learning list and forget hold --owner to the rule keys are created with, and name the --skill they looked at", async () => {
    const dataDir = ["--data-dir", server().dataDir];
    for (const action of ["list", "forget"]) {
      const bad = await runCli(["learning", action, "--owner", "bad owner!", ...dataDir]);
      expect(bad.code, bad.stderr).toBe(2);
      expect(bad.stderr.split("\n")[0]).toBe(
        `skillport learning ${action}: --owner: must be letters, digits, '.', '_' or '-', at most 64 characters`,
      );
    }
    const listed = await runCli([
      "learning",
      "list",
      "--owner",
      "erin",
      "--skill",
      "no.such.skill",
      ...dataDir,
    ]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/^Nothing learned for erin about no\.such\.skill in /);
    const forgotten = await runCli([
      "learning",
      "forget",
      "--owner",
      "erin",
      "--skill",
      "no.such.skill",
      ...dataDir,
    ]);
    expect(forgotten.stdout).toMatch(/^Forgot 0 learned queries of erin about no\.such\.skill in /);
    // Audit 32: that answer alone read as if the skill had learned nothing, when its id was
    // mistyped. A note says so on stderr, with the id meant; the answer stays as it was.
    for (const output of [listed, forgotten]) {
      expect(output.stderr).toContain(
        `note: no skill has the id "no.such.skill", and erin's use taught nothing about it.`,
      );
    }
    const typo = await runCli([
      "learning",
      "forget",
      "--owner",
      "erin",
      "--skill",
      "message.sendd",
      ...dataDir,
    ]);
    expect(typo.code, typo.stderr).toBe(0);
    expect(typo.stderr.trim()).toBe(
      `skillport learning forget: note: no skill has the id "message.sendd", and erin's use taught nothing about it; did you mean "message.send"?`,
    );
    const known = await runCli([
      "learning",
      "list",
      "--owner",
      "erin",
      "--skill",
      "message.send",
      ...dataDir,
    ]);
    expect(known.stderr).toBe("");
    // A skill since removed from the catalog, whose learned queries are still there to forget.
    const db = new Database(join(server().dataDir, "skillport.db"));
    try {
      db.prepare(
        `insert into learned_queries (owner, skill_id, query, count, last_at_ms, last_discover_ms)
         values ('erin', 'acme.retired', 'an old request', 1, ?, ?)`,
      ).run(Date.now(), Date.now());
    } finally {
      db.close();
    }
    const retired = await runCli([
      "learning",
      "forget",
      "--owner",
      "erin",
      "--skill",
      "acme.retired",
      ...dataDir,
    ]);
    expect(retired.stderr).toBe("");
    expect(retired.stdout).toMatch(/^Forgot 1 learned query of erin about acme\.retired in /);
  });

  it("learns from an MCP discover_skills followed by execute_skill with the same key", async () => {
    const carol = await server().createRoomyKey({ owner: "carol" });
    const carolRest = await server().createRoomyKey({ owner: "carol", scope: "read-only" });
    const query = "pause for a moment";
    const before = await discover(carolRest, query);
    expect(before.some((result) => result.match.usage)).toBe(false);
    const mcp = await connectMcp("http", server(), carol.secret);
    try {
      const found = await mcp.client.callTool({ name: "discover_skills", arguments: { query } });
      expect(found.isError).not.toBe(true);
      const ran = await mcp.client.callTool({
        name: "execute_skill",
        arguments: { skill_id: "time.diff", params: { start: "2024-01-01", end: "2024-03-01" } },
      });
      expect(ran.isError, JSON.stringify(ran.content)).not.toBe(true);
    } finally {
      await mcp.close();
    }
    const after = await discover(carolRest, query);
    const learned = after.find((result) => result.skill_id === "time.diff");
    expect(learned?.match.usage).toMatchObject({ query, count: 1 });
    const scoreBefore = before.find((result) => result.skill_id === "time.diff")?.score ?? 0;
    expect(learned?.score).toBeGreaterThan(scoreBefore);
  });
});
