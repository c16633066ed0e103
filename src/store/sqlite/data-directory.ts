import { closeSync, constants, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";

/**
 * Creates `dir` and its missing parents, like `mkdirSync(dir, { recursive: true })`, but
 * one level at a time. Node's recursive mkdir loops forever where a parent exists and the
 * child still cannot be made with ENOENT (e.g. under /proc); here that is an error.
 * `dir` itself, when made here, is its owner's only (`mode`, default 0700): the store in it
 * holds every owner's params, results, messages and memory. Parents get the usual mode.
 */
export function ensureDirectory(dir: string, mode = 0o700): void {
  try {
    mkdirSync(dir, mode);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return;
    const parent = dirname(dir);
    if (code !== "ENOENT" || parent === dir) throw err;
    ensureDirectory(parent, 0o777);
    try {
      mkdirSync(dir, mode);
    } catch (again) {
      if ((again as NodeJS.ErrnoException).code !== "EEXIST") throw again;
    }
  }
}

/**
 * Creates the database file, empty, readable and writable by its owner only, unless it
 * exists (its mode is then the operator's choice). SQLite gives the WAL and shared-memory
 * files it makes beside it the same mode.
 */
export function ensurePrivateFile(path: string): void {
  try {
    closeSync(openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
}
