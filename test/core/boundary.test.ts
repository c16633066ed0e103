import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { sourceFiles } from "../support/source-files.js";

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
  /\/store\/(sqlite|postgres|redis|memory)\//,
  /\/client\//,
];

/**
 * The exceptions, by the import they allow, each with why. The Idempotency-Key rule lives
 * with the client library, which checks it before sending and may load no server code
 * (test/client/boundary.test.ts), so the core takes it from there; the module imports
 * nothing, so the core gets no more of the client than the rule.
 */
const ALLOWED: Record<string, string> = {
  "api-schemas.ts imports ../client/idempotency-key.js": "the Idempotency-Key rule, shared with the client",
};
const IMPORT =
  /(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

function importsOf(file: string): string[] {
  return [...readFileSync(file, "utf8").matchAll(IMPORT)].map((match) => match[1] ?? match[2] ?? "");
}

describe("the core's boundary", () => {
  it("imports no HTTP framework, MCP SDK, database driver, surface or client code", () => {
    const violations: string[] = [];
    for (const file of sourceFiles(CORE)) {
      for (const specifier of importsOf(file)) {
        const found = `${relative(CORE, file)} imports ${specifier}`;
        if (FORBIDDEN.some((pattern) => pattern.test(specifier)) && !(found in ALLOWED))
          violations.push(found);
      }
    }
    expect(violations).toEqual([]);
  });

  it("takes from the client only the Idempotency-Key rule, a module that imports nothing", () => {
    expect(importsOf(join(CORE, "../client/idempotency-key.ts"))).toEqual([]);
  });
});
