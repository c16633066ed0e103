import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { bundleCli, replaceFiles } from "../../scripts/bundle-cli.mjs";

/**
 * Audit 27, finding 3: `npm install /path/to/skillport` runs the checkout's build, whose
 * bundle step removed dist/cli before writing the new one; a `node dist/cli/cli.js mcp`
 * spawned then found no cli.js or no chunk (ERR_MODULE_NOT_FOUND).
 */
const scratch = mkdtempSync(join(tmpdir(), "skillport-bundle-swap-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The files cli.js imports that are missing from `dir` (or cli.js itself). */
function missingIn(dir: string): string[] {
  let entry: string;
  try {
    entry = readFileSync(join(dir, "cli.js"), "utf8");
  } catch {
    return ["cli.js"];
  }
  const chunks = [...entry.matchAll(/from "\.\/([^"]+\.js)"|import\("\.\/([^"]+\.js)"\)/g)].map(
    (match) => match[1] ?? match[2] ?? "",
  );
  return chunks.filter((chunk) => !existsSync(join(dir, chunk)));
}

describe("the CLI bundle step (scripts/bundle-cli.mjs)", () => {
  it("rebuilds dist/cli in place: cli.js and every chunk it imports are there throughout", async () => {
    const outdir = join(scratch, "cli");
    await bundleCli(outdir);
    expect(missingIn(outdir)).toEqual([]);
    const seen = new Set<string>();
    let polls = 0;
    let rebuilding = true;
    // esbuild writes from its own process: this loop runs while the bundle is being made.
    const polling = (async () => {
      while (rebuilding) {
        for (const missing of missingIn(outdir)) seen.add(missing);
        polls++;
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    await bundleCli(outdir);
    rebuilding = false;
    await polling;
    expect(polls).toBeGreaterThan(10);
    expect([...seen]).toEqual([]);
    expect(missingIn(outdir)).toEqual([]);
    expect(existsSync(`${outdir}.tmp`)).toBe(false);
  }, 60_000);

  it("moves the new files over the old, the entry last, and removes the ones no longer built", () => {
    const [staging, outdir] = [join(scratch, "swap.tmp"), join(scratch, "swap")];
    mkdirSync(staging);
    mkdirSync(outdir);
    for (const [name, text] of [
      ["cli.js", "old"],
      ["chunk-A.js", "old"],
      ["chunk-OLD.js", "old"],
    ]) {
      writeFileSync(join(outdir, name as string), text as string);
    }
    for (const name of ["cli.js", "chunk-A.js", "chunk-NEW.js", "cli.js.map"])
      writeFileSync(join(staging, name), "new");
    replaceFiles(staging, outdir);
    expect(readdirSync(outdir).sort()).toEqual(["chunk-A.js", "chunk-NEW.js", "cli.js", "cli.js.map"]);
    for (const name of readdirSync(outdir)) expect(readFileSync(join(outdir, name), "utf8")).toBe("new");
    expect(existsSync(staging)).toBe(false);
  });
});
