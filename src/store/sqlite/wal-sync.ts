import { closeSync, fdatasync, fstatSync, openSync } from "node:fs";
import type { SyncWal } from "./group-commit.js";

/** The WAL file's fsync, and whether the file synced is still the one at its path. */
export interface WalSync {
  sync: SyncWal;
  /**
   * True once the WAL file this store syncs has no name left (deleted while open): SQLite
   * goes on committing into it, and every commit since the last checkpoint is lost when the
   * process ends. One `fstat`, well under a microsecond.
   */
  unlinked(): boolean;
  close(): void;
}

/**
 * fdatasync of the database's WAL file on libuv's thread pool (see `GroupCommit`).
 *
 * On Linux an fsync on any descriptor of a file flushes all of that file's dirty pages,
 * whoever wrote them, so syncing our own read-only descriptor makes SQLite's commits
 * durable. The descriptor stays valid: SQLite never renames the WAL, and deletes it only
 * when the last connection closes, which cannot happen while this store holds one. It is
 * opened at once (the store's connections have created the WAL by then), so that it is
 * SQLite's file that is synced and watched, even if the name is deleted before the first
 * commit.
 */
export function createWalSync(databasePath: string): WalSync {
  const walPath = `${databasePath}-wal`;
  let fd: number | undefined;
  const open = (): number | undefined => {
    try {
      fd ??= openSync(walPath, "r");
    } catch (err) {
      // No WAL file: nothing was committed through one, everything is in the database file.
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw err;
    }
    return fd;
  };
  try {
    open();
  } catch {
    // Tried again at the first sync, which reports the failure.
  }
  return {
    sync: () =>
      new Promise<void>((resolve, reject) => {
        let opened: number | undefined;
        try {
          opened = open();
        } catch (err) {
          return reject(err);
        }
        if (opened === undefined) return resolve();
        fdatasync(opened, (err) => (err ? reject(err) : resolve()));
      }),
    unlinked: () => fd !== undefined && fstatSync(fd).nlink === 0,
    close() {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
  };
}
