import { closeSync, fdatasync, openSync } from "node:fs";
import type { SyncWal } from "./group-commit.js";

/**
 * fdatasync of the database's WAL file on libuv's thread pool (see `GroupCommit`).
 *
 * On Linux an fsync on any descriptor of a file flushes all of that file's dirty pages,
 * whoever wrote them, so syncing our own read-only descriptor makes SQLite's commits
 * durable. The descriptor stays valid: SQLite never renames the WAL, and deletes it only
 * when the last connection closes, which cannot happen while this store holds one.
 */
export function createWalSync(databasePath: string): { sync: SyncWal; close(): void } {
  const walPath = `${databasePath}-wal`;
  let fd: number | undefined;
  return {
    sync: () =>
      new Promise<void>((resolve, reject) => {
        try {
          fd ??= openSync(walPath, "r");
        } catch (err) {
          // No WAL file: nothing was committed through one, everything is in the database file.
          if ((err as NodeJS.ErrnoException).code === "ENOENT") return resolve();
          return reject(err);
        }
        fdatasync(fd, (err) => (err ? reject(err) : resolve()));
      }),
    close() {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
  };
}
