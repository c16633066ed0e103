import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const CORE = join(import.meta.dirname, "../../src/core");
/** What the core must never import (DESIGN.md: one core, thin surfaces, ports for storage). */
const FORBIDDEN = [
  /^fastify/,
  /^@fastify\//,
  /^@modelcontextprotocol\//,
  /^better-sqlite3$/,
  /^pg$/,
  /^ioredis$/,
  /^redis$/,
  /^undici$/,
  /^node:http$/,
  /^node:https$/,
  /\/http\//,
  /\/mcp\//,
  /\/store\/(sqlite|postgres|redis)\//,
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

describe("the core's boundary", () => {
  it("imports no HTTP framework, MCP SDK, database driver or surface", () => {
    const violations: string[] = [];
    for (const file of sourceFiles(CORE)) {
      const text = readFileSync(file, "utf8");
      for (const match of text.matchAll(
        /(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g,
      )) {
        const specifier = match[1] ?? match[2] ?? "";
        if (FORBIDDEN.some((pattern) => pattern.test(specifier)))
          violations.push(`${relative(CORE, file)} imports ${specifier}`);
      }
    }
    expect(violations).toEqual([]);
  });
});
