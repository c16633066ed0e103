import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const REPO_ROOT = resolve(import.meta.dirname, "../..");
const CLIENT_DIST = join(REPO_ROOT, "dist/src/client");
const CLIENT_SRC = join(REPO_ROOT, "src/client");
/** What the client's JavaScript may import besides its own files: its two dependencies and Node. */
const ALLOWED_PACKAGES = [/^undici$/, /^eventsource-parser$/, /^node:/];

/** Import and export specifiers of a module's text; with `valuesOnly`, `import type` lines are skipped. */
function specifiers(text: string, valuesOnly: boolean): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(
    /(?:^|\n)\s*(import|export)(\s+type)?\b[^'"]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g,
  )) {
    if (valuesOnly && match[2]) continue;
    found.push(match[3] ?? match[4] ?? "");
  }
  return found;
}

function filesOf(dir: string, suffix: string): string[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith(suffix) && !name.endsWith(".d.ts"))
    .map((name) => join(dir, name));
}

/** Imports that leave the client folder or name a package beyond the allowed ones. */
function violations(files: string[], root: string, valuesOnly: boolean): string[] {
  return files.flatMap((file) =>
    specifiers(readFileSync(file, "utf8"), valuesOnly).flatMap((specifier) => {
      if (specifier.startsWith(".")) {
        const target = resolve(dirname(file), specifier);
        return relative(root, target).startsWith("..")
          ? [`${relative(root, file)} imports ${specifier}`]
          : [];
      }
      return ALLOWED_PACKAGES.some((pattern) => pattern.test(specifier))
        ? []
        : [`${relative(root, file)} imports ${specifier}`];
    }),
  );
}

// The client ships in the same package as the server, but a program that imports
// `skillport/client` must load none of the server: types from the server are fine
// (they vanish at compile time), values are not.
describe("the client's boundary", () => {
  it("the built client (dist/src/client/*.js) imports only its own files, undici, eventsource-parser and node:", () => {
    expect(existsSync(CLIENT_DIST), "run `npm run build` first").toBe(true);
    const files = filesOf(CLIENT_DIST, ".js");
    expect(files.map((file) => relative(CLIENT_DIST, file))).toContain("index.js");
    expect(violations(files, CLIENT_DIST, false)).toEqual([]);
  });

  it("the client's sources import server code as types only", () => {
    expect(violations(filesOf(CLIENT_SRC, ".ts"), CLIENT_SRC, true)).toEqual([]);
  });
});
