import { readFileSync } from "node:fs";

interface Manifest {
  name?: string;
  version?: string;
}

/** True when this code runs from the TypeScript sources (tsx, vitest), not from a build. */
export const runningFromSources = import.meta.url.endsWith(".ts");

/**
 * skillport's package root and manifest, found by walking up from this module. The code
 * runs from `src/` (tsx, tests), from `dist/src/` (tsc's output) and from `dist/cli/` (the
 * CLI bundle, whose chunks all sit in one directory), each at its own depth, so a path
 * relative to `import.meta.url` would hold for only one of them.
 */
function findPackage(): { root: URL; manifest: Manifest } | undefined {
  let dir = new URL("./", import.meta.url);
  for (let depth = 0; depth < 5; depth++) {
    try {
      const manifest = JSON.parse(readFileSync(new URL("package.json", dir), "utf8")) as Manifest;
      if (manifest.name === "skillport") return { root: dir, manifest };
    } catch {
      // not here; look one level up
    }
    dir = new URL("../", dir);
  }
  return undefined;
}

const found = findPackage();

/** The package's version, from its package.json. */
export function packageVersion(): string {
  return found?.manifest.version ?? "0.0.0";
}

/**
 * A file the code opens at run time rather than imports (a worker's entry, the modules
 * a worker loads, the dashboard's assets), named by its path in the sources, such as
 * `src/isolation/skill-worker.ts`: from the sources it is that file; from a build it is
 * its compiled twin under `dist/` (`.ts` becomes `.js`; the build copies other files).
 */
export function runtimeFile(sourcePath: string): URL {
  if (!found) throw new Error("skillport's package.json was not found above its modules.");
  const built = runningFromSources ? sourcePath : `dist/${sourcePath.replace(/\.ts$/, ".js")}`;
  return new URL(built, found.root);
}
