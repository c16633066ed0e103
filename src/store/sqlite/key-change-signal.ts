import { randomBytes } from "node:crypto";
import { renameSync, statSync, writeFileSync } from "node:fs";

/**
 * A file whose identity changes whenever any process changes a key, so that processes
 * sharing the data directory can cache keys and still refuse a revoked key on the very
 * next request (contract.md, "API keys"): checking it is one `stat`, far cheaper than a
 * database read. Each change writes a new file and renames it over the old one, so the
 * inode and modification time both change.
 */
export class KeyChangeSignal {
  constructor(private readonly path: string) {}

  /** The signal's current version; changes after every `announce`, by any process. */
  version(): string {
    const stats = statSync(this.path, { bigint: true, throwIfNoEntry: false });
    return stats ? `${stats.ino}:${stats.mtimeNs}:${stats.ctimeNs}` : "none";
  }

  /** Tells every process that keys changed; call after the change is committed. */
  announce(): void {
    const temporary = `${this.path}.${process.pid}.${randomBytes(4).toString("hex")}`;
    writeFileSync(temporary, randomBytes(8));
    renameSync(temporary, this.path);
  }
}
