import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import { builtinSkills } from "../../skills/index.js";
import type { SkillportBackend } from "../../src/mcp/backend.js";
import { bothBackends } from "./both-backends.js";
import { inMemoryMcpClient } from "./in-memory-client.js";
import { textOf } from "./tool-result-text.js";

/** An answer's text with its timing, the one member two discovers of the same query do not share, made equal. */
const untimed = (json: string) => json.replace(/"took_ms":[^,}]+/, '"took_ms":0');

// POST /v1/discover wrote its answer with the JSON the catalog keeps of each skill's summary
// (`CatalogService.answerJson`), while discover_skills serialised the same answer again
// with JSON.stringify: the same text, written twice over by two rules that could drift.
describe("discover_skills' text", () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  const discoverText = async (backend: SkillportBackend, query: string) => {
    const client = await inMemoryMcpClient(backend);
    cleanups.push(() => client.close());
    const result = (await client.callTool({
      name: "discover_skills",
      arguments: { query, limit: 5 },
    })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    return { text: textOf(result), structured: result.structuredContent };
  };

  it("is the REST answer's body for the same query and key, written by the catalog's answerJson", async () => {
    const { core, client, secret: _, ...backends } = await bothBackends(builtinSkills, cleanups);
    const written = vi.spyOn(core.skillport.catalog, "answerJson");
    const query = "convert 5 miles to kilometres";
    const rest = await client.discover({ query, limit: 5 });
    const restBody = written.mock.results.at(-1)?.value as string;
    expect(JSON.parse(restBody)).toEqual(rest);

    written.mockClear();
    const embedded = await discoverText(backends.embedded, query);
    expect(written).toHaveBeenCalledTimes(1);
    expect(embedded.text).toBe(written.mock.results[0]?.value);
    expect(untimed(embedded.text)).toBe(untimed(restBody));
    expect(JSON.parse(embedded.text)).toEqual(embedded.structured);

    // --remote repeats what it read of the REST answer: the same text.
    const remote = await discoverText(await backends.remote(), query);
    expect(untimed(remote.text)).toBe(untimed(restBody));
    expect(JSON.parse(remote.text)).toEqual(remote.structured);
  });
});
