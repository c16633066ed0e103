import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { readAllJsonLines } from "../../src/discovery-eval/read-json-lines.js";
import { labelledQuery, toolRecord } from "../../src/discovery-eval/tool-records.js";

describe("evaluation data", () => {
  it("reads JSON Lines, plain or gzipped, skipping blank lines and stopping at the limit", async () => {
    const dir = await mkdtemp(join(tmpdir(), "skillport-jsonl-"));
    try {
      const text = '{"a":1}\n\n{"a":2}\n{"a":3}\n';
      await writeFile(join(dir, "plain.jsonl"), text);
      await writeFile(join(dir, "packed.jsonl.gz"), gzipSync(text));
      expect(await readAllJsonLines(join(dir, "plain.jsonl"))).toEqual([{ a: 1 }, { a: 2 }, { a: 3 }]);
      expect(await readAllJsonLines(join(dir, "packed.jsonl.gz"), 2)).toEqual([{ a: 1 }, { a: 2 }]);
      await writeFile(join(dir, "broken.jsonl"), '{"a":1}\nnot json\n');
      await expect(readAllJsonLines(join(dir, "broken.jsonl"))).rejects.toThrow(/broken.jsonl:2/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("maps a tool line to a skill: schema, category as tag, other text as extra", () => {
    const record = toolRecord(
      {
        id: "github/search",
        name: "search_repositories",
        description: "Search repositories",
        inputSchema: { type: "object", properties: { q: { type: "string" } } },
        category: "developer",
        server: "github",
        description_for_model: "Use for code search",
        stars: 5,
      },
      1,
    );
    expect(record).toEqual({
      id: "github/search",
      name: "search_repositories",
      description: "Search repositories",
      params: { type: "object", properties: { q: { type: "string" } } },
      tags: ["developer"],
      examples: [],
      extra: "github\nUse for code search",
    });
  });

  it("refuses a tool without an id or name, and a query without relevant ids", () => {
    expect(() => toolRecord({ description: "x" }, 3)).toThrow(/tool 3/);
    expect(() => labelledQuery({ query: "x" }, 4)).toThrow(/query 4/);
    expect(labelledQuery({ id: "q", query: "find papers", relevant: ["a"] }, 1)).toEqual({
      query: "find papers",
      relevant: ["a"],
    });
  });
});
