import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ERROR_CODES, EXECUTION_ERROR_CODES } from "../../src/core/errors.js";

// STYLE.md: the one table of errors is checked against the docs, so that a code added,
// renamed or given another status cannot leave them behind.
const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
const lifecycle = readFileSync(new URL("../../docs/lifecycle.md", import.meta.url), "utf8");

/** `{code: status}` from the README's error table: rows `| 404 | \`a\` / \`b\` | when |`. */
function readmeErrorTable(): Record<string, number> {
  const table: Record<string, number> = {};
  for (const [, status, codes] of readme.matchAll(/^\| (\d{3}) \| ([^|]+) \|/gm)) {
    for (const [, code] of (codes ?? "").matchAll(/`([a-z_]+)`/g)) {
      if (code) table[code] = Number(status);
    }
  }
  return table;
}

describe("the error table and the docs", () => {
  it("lists in the README's error table every code of ERROR_CODES with its status, and no other", () => {
    const fromTable = Object.fromEntries(
      Object.entries(ERROR_CODES).map(([code, { status }]) => [code, status]),
    );
    expect(readmeErrorTable()).toEqual(fromTable);
  });

  it("places every request error and every execution error code in a step of docs/lifecycle.md", () => {
    // The last column of the steps table: `| # | step | where | codes it can raise |`.
    const raisedColumns = [...lifecycle.matchAll(/^\|[^|\n]*\|[^|\n]*\|[^|\n]*\| ([^|\n]*) \|$/gm)].map(
      ([, codes]) => codes ?? "",
    );
    const placed = new Set(
      raisedColumns.flatMap((codes) => [...codes.matchAll(/`([a-z_]+)`/g)].map(([, code]) => code)),
    );
    const codes = [...Object.keys(ERROR_CODES), ...EXECUTION_ERROR_CODES];
    expect(codes.filter((code) => !placed.has(code))).toEqual([]);
  });

  it("names in docs/lifecycle.md only files that exist", () => {
    const paths = [...lifecycle.matchAll(/`(src\/[\w/.-]+\.ts|test\/[\w/.-]+\.ts)`/g)].map(
      ([, path]) => path,
    );
    expect(paths.length).toBeGreaterThan(10);
    const missing = paths.filter((path) => {
      try {
        readFileSync(new URL(`../../${path}`, import.meta.url));
        return false;
      } catch {
        return true;
      }
    });
    expect(missing).toEqual([]);
  });
});
