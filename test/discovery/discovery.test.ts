import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Bm25fRetriever } from "../../src/core/discovery/bm25f.js";
import { createDiscovery, createDiscoveryIndex } from "../../src/core/discovery/index.js";
import { SkillRegistry } from "../../src/core/skills/registry.js";
import { defineSkill, type Skill } from "../../src/core/skills/skill.js";

const annotations = { readOnly: false, destructive: false, idempotent: false, openWorld: false };

function skill(
  id: string,
  title: string,
  description: string,
  tags: string[],
  examples: string[] = [],
): Skill {
  return defineSkill({
    id,
    title,
    description,
    tags,
    params: z.object({ channel: z.string().describe("Where the text goes"), text: z.string() }),
    result: z.object({}),
    annotations,
    examples: examples.map((query) => ({ query, params: { channel: "general", text: query } })),
    run: async () => ({}),
  });
}

const messageSend = skill("message.send", "Send a message", "Posts a message to a channel.", [
  "Messaging",
  "write",
]);
const messageList = skill("message.list", "List messages", "Lists the messages of a channel.", [
  "messaging",
  "read",
]);
const emailSend = skill("email.send", "Send an email", "Sends an email over SMTP.", ["email", "write"]);
const power = skill(
  "math.power",
  "Power",
  "Raises a number to an exponent.",
  ["math"],
  ["what is 12 squared"],
);

const ids = (hits: { skill_id: string }[]): string[] => hits.map((hit) => hit.skill_id);

describe("createDiscovery", () => {
  it("indexes the skills already in the registry", async () => {
    const discovery = createDiscovery(new SkillRegistry([messageSend, messageList, emailSend]));
    expect(discovery.index.size).toBe(3);
    expect(ids((await discovery.search("send a message to a channel")).hits)[0]).toBe("message.send");
  });

  it("builds its index on first use, not when created, with the skills the registry has then", async () => {
    const registry = new SkillRegistry([messageSend]);
    const list = registry.list.bind(registry);
    let listed = 0;
    registry.list = () => {
      listed++;
      return list();
    };
    const discovery = createDiscovery(registry);
    expect(listed).toBe(0);
    registry.add(power);
    expect(ids((await discovery.search("exponent of a number")).hits)).toEqual(["math.power"]);
    await discovery.search("send a message");
    expect(listed).toBe(1);
  });

  it("finds a skill added to the registry on the very next search", async () => {
    const registry = new SkillRegistry([messageSend]);
    const discovery = createDiscovery(registry);
    expect((await discovery.search("exponent of a number")).hits).toEqual([]);
    registry.add(power);
    expect(ids((await discovery.search("exponent of a number")).hits)).toEqual(["math.power"]);
  });

  it("no longer returns a skill removed from the registry", async () => {
    const registry = new SkillRegistry([messageSend, messageList]);
    const discovery = createDiscovery(registry);
    registry.remove("message.send");
    expect(ids((await discovery.search("send a message")).hits)).toEqual(["message.list"]);
    expect(discovery.index.has("message.send")).toBe(false);
  });

  it("reads examples' queries and parameter descriptions", async () => {
    const discovery = createDiscovery(new SkillRegistry([messageSend, emailSend, power]));
    expect(ids((await discovery.search("7 squared")).hits)[0]).toBe("math.power");
    // "goes" only occurs in the description of the `channel` parameter.
    expect(ids((await discovery.search("where the text goes")).hits).length).toBe(3);
  });

  it("stops following the registry after close", async () => {
    const registry = new SkillRegistry([messageSend]);
    const discovery = createDiscovery(registry);
    discovery.close();
    registry.add(power);
    expect((await discovery.search("exponent")).hits).toEqual([]);
  });
});

describe("DiscoveryIndex.search options", () => {
  const registry = new SkillRegistry([messageSend, messageList, emailSend, power]);
  const discovery = createDiscovery(registry);

  it("keeps only skills having ALL the given tags, case-insensitively", async () => {
    expect(ids((await discovery.search("send", { tags: ["write"] })).hits).sort()).toEqual([
      "email.send",
      "message.send",
    ]);
    expect(ids((await discovery.search("send message", { tags: ["messaging", "WRITE"] })).hits)).toEqual([
      "message.send",
    ]);
    expect((await discovery.search("send", { tags: ["messaging", "math"] })).hits).toEqual([]);
    expect((await discovery.search("send", { tags: ["unknown"] })).hits).toEqual([]);
  });

  it("treats an empty tags list as no filter", async () => {
    expect((await discovery.search("send", { tags: [] })).hits).toEqual(
      (await discovery.search("send")).hits,
    );
  });

  it("applies the tags filter before the limit", async () => {
    // Without the filter message.send and email.send outrank message.list for this query.
    expect(ids((await discovery.search("send a message", { limit: 1, tags: ["read"] })).hits)).toEqual([
      "message.list",
    ]);
  });

  it("returns at most `limit` hits, 10 by default", async () => {
    expect((await discovery.search("message send email channel number", { limit: 2 })).hits).toHaveLength(2);
    const many = createDiscoveryIndex(
      Array.from({ length: 25 }, (_, index) => ({ id: `tool.${index}`, description: "Sends things." })),
    );
    expect((await many.search("send")).hits).toHaveLength(10);
    expect((await many.search("send", { limit: 0 })).hits).toEqual([]);
  });

  it("returns [] for a query made only of stop words", async () => {
    expect((await discovery.search("can you do it for me?")).hits).toEqual([]);
  });

  it("returns skill ids with scores in (0, 1], best first", async () => {
    const hits = (await discovery.search("send a message to a channel")).hits;
    expect(hits.length).toBeGreaterThan(1);
    for (const hit of hits) expect(hit.score > 0 && hit.score <= 1).toBe(true);
    const scores = hits.map((hit) => hit.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });
});

describe("match explanations", () => {
  it("says which query words matched in which field, as the query spelled them (lowercase)", async () => {
    const discovery = createDiscovery(new SkillRegistry([messageSend, messageList, emailSend]));
    const [top] = (await discovery.search("Sending messages to a channel")).hits;
    expect(top?.skill_id).toBe("message.send");
    expect(top?.match.fields).toEqual({
      id: ["sending", "messages"],
      title: ["sending", "messages"],
      tags: ["messages"],
      description: ["messages", "channel"],
      params: ["channel"],
    });
    expect(top?.match.lexical).toBe(top?.score);
    expect(top?.match.semantic).toBeUndefined();
  });

  it("explains nothing for an unknown id", () => {
    const index = createDiscoveryIndex([{ id: "a", description: "alpha" }]);
    expect(new Bm25fRetriever().explainer("alpha")("missing")).toEqual({});
    expect(index.searchLexical("alpha", 1)[0]?.match.fields).toEqual({ description: ["alpha"] });
  });
});

describe("createDiscoveryIndex", () => {
  it("ranks description-only records like catalog skills", async () => {
    const index = createDiscoveryIndex([
      { id: "weather", name: "WeatherNow", description: "Current weather for a city." },
      {
        id: "news",
        name: "NewsToday",
        description: "Headlines of the day.",
        extra: "Also covers weather news.",
      },
    ]);
    expect(ids((await index.search("what's the weather in Paris")).hits)).toEqual(["weather", "news"]);
    expect(ids((await index.search("weather now")).hits)[0]).toBe("weather");
  });
});
