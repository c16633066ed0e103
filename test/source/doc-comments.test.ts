import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { sourceFiles } from "../support/source-files.js";

const ROOT = join(import.meta.dirname, "../..");

/**
 * Two doc comments in a row mean one of them describes nothing: an editor shows a reader of
 * the declaration the second one, and the first belongs to a declaration that was moved
 * (audit 24 found five such pairs, each telling a reader of one thing about another).
 */
describe("doc comments", () => {
  it("each sit on a declaration, never stacked on another doc comment", () => {
    const stacked: string[] = [];
    for (const file of [...sourceFiles(join(ROOT, "src")), ...sourceFiles(join(ROOT, "skills"))]) {
      const text = readFileSync(file, "utf8");
      // A doc comment (not a plain /* section comment */) followed by nothing but a line break.
      for (const match of text.matchAll(/\/\*\*(?:(?!\*\/)[\s\S])*\*\/[ \t]*\n[ \t]*\/\*\*/g)) {
        const line = text.slice(0, match.index + match[0].length).split("\n").length;
        stacked.push(`${relative(ROOT, file)}:${line}`);
      }
    }
    expect(stacked).toEqual([]);
  });
});
