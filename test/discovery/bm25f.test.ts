import { describe, expect, it } from "vitest";
import { Bm25fRetriever, DEFAULT_BM25F_PARAMETERS } from "../../src/core/discovery/bm25f.js";
import { type DescriptionRecord, recordToDocument } from "../../src/core/discovery/document.js";

const catalog: DescriptionRecord[] = [
  {
    id: "message.send",
    name: "Send a message",
    description: "Posts a text message to a channel of the caller.",
    params: {
      type: "object",
      properties: { channel: { type: "string", description: "Channel name" }, text: { type: "string" } },
    },
    tags: ["messaging"],
  },
  {
    id: "message.list",
    name: "List messages",
    description: "Lists the messages of a channel, newest first.",
    params: { type: "object", properties: { channel: { type: "string" }, limit: { type: "integer" } } },
    tags: ["messaging"],
  },
  {
    id: "email.send",
    name: "Send an email",
    description: "Sends an email to an address over SMTP.",
    params: { type: "object", properties: { to: { type: "string" }, subject: { type: "string" } } },
    tags: ["email"],
  },
  {
    id: "weather.forecast",
    name: "Weather forecast",
    description: "Forecast of temperature and rain for a city.",
    params: { type: "object", properties: { city: { type: "string" } } },
    tags: ["weather"],
  },
  {
    id: "math.evaluate",
    name: "Evaluate an expression",
    description: "Computes an arithmetic expression such as 2^10.",
    examples: ["what is 2 to the power of 10"],
    tags: ["math"],
  },
];

function retrieverWith(records: DescriptionRecord[]): Bm25fRetriever {
  const retriever = new Bm25fRetriever();
  for (const record of records) retriever.add(recordToDocument(record));
  return retriever;
}

const ids = (results: { id: string }[]): string[] => results.map((result) => result.id);

describe("Bm25fRetriever ranking", () => {
  it("ranks message.send first for 'send a message to a channel'", () => {
    const results = retrieverWith(catalog).search("send a message to a channel", { limit: 5 });
    expect(ids(results).slice(0, 3)).toEqual(["message.send", "message.list", "email.send"]);
  });

  it("finds a skill by its identifier written in prose", () => {
    const results = retrieverWith(catalog).search("weather forecast", { limit: 1 });
    expect(ids(results)).toEqual(["weather.forecast"]);
  });

  it("matches example queries", () => {
    const results = retrieverWith(catalog).search("what's 3 to the power of 4?", { limit: 1 });
    expect(ids(results)).toEqual(["math.evaluate"]);
  });

  it("returns scores in (0, 1], best first, ties broken by id", () => {
    const results = retrieverWith(catalog).search("send channel email message", { limit: 10 });
    expect(results.length).toBeGreaterThan(2);
    for (const { score } of results) {
      expect(score).toBeGreaterThan(0);
      expect(score).toBeLessThanOrEqual(1);
    }
    for (let index = 1; index < results.length; index += 1) {
      const previous = results[index - 1];
      const current = results[index];
      if (!previous || !current) continue;
      expect(
        previous.score > current.score || (previous.score === current.score && previous.id < current.id),
      ).toBe(true);
    }
  });

  it("gives an exact match a high score and a partial match a lower one", () => {
    const retriever = retrieverWith(catalog);
    const [exact] = retriever.search("weather forecast", { limit: 1 });
    const [partial] = retriever.search("weather forecast for my ski trip in norway", { limit: 1 });
    expect(exact?.score ?? 0).toBeGreaterThan(0.6);
    expect(partial?.id).toBe("weather.forecast");
    expect(partial?.score ?? 1).toBeLessThan(exact?.score ?? 0);
  });

  it("keeps a score independent of the other documents that match", () => {
    const retriever = retrieverWith(catalog);
    const alone = retriever.search("forecast", { limit: 10 });
    const withOthers = retriever.search("forecast", { limit: 10, filter: () => true });
    expect(withOthers).toEqual(alone);
  });

  it("returns [] for a query with no usable term instead of throwing", () => {
    const retriever = retrieverWith(catalog);
    expect(retriever.search("the and of to", { limit: 5 })).toEqual([]);
    expect(retriever.search("?!", { limit: 5 })).toEqual([]);
    expect(retriever.search("", { limit: 5 })).toEqual([]);
    expect(retriever.search("zzzunknownword", { limit: 5 })).toEqual([]);
  });

  it("returns [] on an empty index", () => {
    expect(new Bm25fRetriever().search("send", { limit: 5 })).toEqual([]);
  });

  it("honours limit and filter", () => {
    const retriever = retrieverWith(catalog);
    expect(retriever.search("message channel email", { limit: 1 })).toHaveLength(1);
    expect(retriever.search("message channel email", { limit: 0 })).toEqual([]);
    const filtered = retriever.search("send", { limit: 5, filter: (id) => id.startsWith("email.") });
    expect(ids(filtered)).toEqual(["email.send"]);
  });

  it("searches with and without a filter at once, as two searches would", () => {
    const retriever = retrieverWith(catalog);
    const within = (id: string) => id.startsWith("message.");
    expect(retriever.searchWithin("send a message by email", 2, within)).toEqual({
      all: retriever.search("send a message by email", { limit: 2 }),
      within: retriever.search("send a message by email", { limit: 2, filter: within }),
    });
    expect(retriever.searchWithin("the and of", 2, within)).toEqual({ all: [], within: [] });
  });
});

describe("Bm25fRetriever incremental updates", () => {
  it("finds a document as soon as it is added, without rebuilding", () => {
    const retriever = retrieverWith(catalog);
    expect(retriever.search("translate", { limit: 5 })).toEqual([]);
    retriever.add(
      recordToDocument({ id: "text.translate", name: "Translate", description: "Translates text." }),
    );
    expect(ids(retriever.search("translate text", { limit: 1 }))).toEqual(["text.translate"]);
    expect(retriever.size).toBe(catalog.length + 1);
  });

  it("forgets a removed document on the very next search", () => {
    const retriever = retrieverWith(catalog);
    expect(retriever.remove("message.send")).toBe(true);
    expect(retriever.remove("message.send")).toBe(false);
    expect(retriever.has("message.send")).toBe(false);
    const results = retriever.search("send a message to a channel", { limit: 5 });
    expect(ids(results)).not.toContain("message.send");
    expect(ids(results)[0]).toBe("message.list");
  });

  it("ranks exactly as a fresh index after adds and removes", () => {
    const incremental = retrieverWith(catalog);
    incremental.remove("email.send");
    incremental.remove("weather.forecast");
    incremental.add(
      recordToDocument({ id: "text.translate", name: "Translate", description: "Translates text." }),
    );
    const [emailSend, weather] = [catalog[2], catalog[3]];
    if (emailSend) incremental.add(recordToDocument(emailSend));
    const fresh = retrieverWith(
      [...catalog, { id: "text.translate", name: "Translate", description: "Translates text." }].filter(
        (record) => record !== weather,
      ),
    );
    for (const query of ["send a message", "send email", "translate", "channel messages"]) {
      const a = incremental.search(query, { limit: 10 });
      const b = fresh.search(query, { limit: 10 });
      expect(ids(a)).toEqual(ids(b));
      a.forEach((result, index) => {
        expect(result.score).toBeCloseTo(b[index]?.score ?? -1, 12);
      });
    }
  });

  it("replaces a document added twice under the same id", () => {
    const retriever = retrieverWith(catalog);
    retriever.add(recordToDocument({ id: "message.send", name: "Ping", description: "Pings a host." }));
    expect(retriever.size).toBe(catalog.length);
    expect(ids(retriever.search("ping host", { limit: 5 }))).toEqual(["message.send"]);
    // The old description's words are gone; only the id still says "message".
    expect(ids(retriever.search("posts text to a channel", { limit: 5 }))).not.toContain("message.send");
  });

  it("empties completely when every document is removed", () => {
    const retriever = retrieverWith(catalog);
    for (const record of catalog) retriever.remove(record.id);
    expect(retriever.size).toBe(0);
    expect(retriever.search("send message", { limit: 5 })).toEqual([]);
  });
});

describe("Bm25fRetriever parameters", () => {
  it("refuses parameters that would make scores meaningless", () => {
    expect(() => new Bm25fRetriever({ ...DEFAULT_BM25F_PARAMETERS, k1: 0 })).toThrow(RangeError);
    const fields = { ...DEFAULT_BM25F_PARAMETERS.fields, title: { weight: 1, b: 1.5 } };
    expect(() => new Bm25fRetriever({ ...DEFAULT_BM25F_PARAMETERS, fields })).toThrow(RangeError);
  });

  it("ignores a field weighted 0", () => {
    const fields = { ...DEFAULT_BM25F_PARAMETERS.fields, examples: { weight: 0, b: 0.75 } };
    const retriever = new Bm25fRetriever({ ...DEFAULT_BM25F_PARAMETERS, fields });
    for (const record of catalog) retriever.add(recordToDocument(record));
    expect(retriever.search("power", { limit: 5 })).toEqual([]);
  });
});

describe("Bm25fRetriever robustness", () => {
  it("answers correctly after a search whose filter threw", () => {
    const retriever = retrieverWith(catalog);
    const before = retriever.search("send a message", { limit: 5 });
    expect(() =>
      retriever.search("send a message", {
        limit: 5,
        filter: () => {
          throw new Error("filter failed");
        },
      }),
    ).toThrow("filter failed");
    expect(retriever.search("send a message", { limit: 5 })).toEqual(before);
  });
});
