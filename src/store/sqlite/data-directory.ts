import { mkdirSync } from "node:fs";
import { dirname } from "node:path";

/**
 * Creates `dir` and its missing parents, like `mkdirSync(dir, { recursive: true })`, but
 * one level at a time. Node's recursive mkdir loops forever where a parent exists and the
 * child still cannot be made with ENOENT (e.g. under /proc); here that is an error.
 */
export function ensureDirectory(dir: string): void {
  try {
    mkdirSync(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return;
    const parent = dirname(dir);
    if (code !== "ENOENT" || parent === dir) throw err;
    ensureDirectory(parent);
    try {
      mkdirSync(dir);
    } catch (again) {
      if ((again as NodeJS.ErrnoException).code !== "EEXIST") throw again;
    }
  }
}
