import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { sourceFiles } from "../support/source-files.js";

const ROOT = join(import.meta.dirname, "../..");

/**
 * The audit notes are not in the repository, and their numbers are not unique, so a comment
 * citing one ("audit 26 #4") sends a reader nowhere: a comment says the reason itself, or
 * cites the spec, the contract or a test.
 */
describe("source comments", () => {
  it("cite no audit by number", () => {
    const cited: string[] = [];
    for (const file of [...sourceFiles(join(ROOT, "src")), ...sourceFiles(join(ROOT, "skills"))]) {
      readFileSync(file, "utf8")
        .split("\n")
        .forEach((line, index) => {
          if (/\baudit \d+/i.test(line)) cited.push(`${relative(ROOT, file)}:${index + 1}`);
        });
    }
    expect(cited).toEqual([]);
  });
});
