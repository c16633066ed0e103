import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The package's version, read from the nearest package.json (works from src/ and dist/src/). */
export function packageVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === "skillport" && pkg.version) return pkg.version;
    } catch {
      // not here; look one level up
    }
    dir = dirname(dir);
  }
  return "0.0.0";
}
