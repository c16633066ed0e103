import { statSync } from "node:fs";

/**
 * The file at `path` as the file system knows it (device and inode), or undefined when
 * nothing is there. Two equal identities are the same file, whatever happened to its name:
 * a database file deleted or replaced under a running store is told apart this way, while
 * the store's connections go on writing to the file they opened.
 * One `stat`, cheap enough for every readiness probe. Bigints, as an inode number may
 * exceed 2^53.
 */
export function fileIdentity(path: string): string | undefined {
  const stat = statSync(path, { bigint: true, throwIfNoEntry: false });
  return stat && `${stat.dev}:${stat.ino}`;
}
