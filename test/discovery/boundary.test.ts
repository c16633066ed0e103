import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const directory = fileURLToPath(new URL("../../src/core/discovery/", import.meta.url));
/** Transports and storage live outside the core (STYLE.md §1). */
const FORBIDDEN =
  /^(fastify|@fastify\/|@modelcontextprotocol\/|better-sqlite3|pg|undici|hono|\.\.\/\.\.\/(http|store|mcp))/;

describe("discovery core boundary", () => {
  it("imports no HTTP, MCP or database code", () => {
    const offenders: string[] = [];
    for (const file of readdirSync(directory).filter((name) => name.endsWith(".ts"))) {
      const source = readFileSync(`${directory}${file}`, "utf8");
      for (const match of source.matchAll(/(?:from|import|require)\s*\(?\s*["']([^"']+)["']/g)) {
        const specifier = match[1] ?? "";
        if (FORBIDDEN.test(specifier)) offenders.push(`${file}: ${specifier}`);
      }
    }
    expect(offenders).toEqual([]);
  });
});
