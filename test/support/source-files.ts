import { readdirSync } from "node:fs";
import { join } from "node:path";

/** Every TypeScript file under `dir`, at any depth: what tests of the sources read. */
export function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}
