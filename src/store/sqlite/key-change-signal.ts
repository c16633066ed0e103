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
  private ino = -1;
  private mtimeMs = -1;
  private ctimeMs = -1;
  private generation = 0;

  constructor(private readonly path: string) {}

  /**
   * A number that changes after every `announce`, by any process. (Plain-number stats and
   * field comparisons: this runs on every request.)
   */
  version(): number {
    const stats = statSync(this.path, { throwIfNoEntry: false });
    const ino = stats?.ino ?? 0;
    const mtimeMs = stats?.mtimeMs ?? 0;
    const ctimeMs = stats?.ctimeMs ?? 0;
    if (ino !== this.ino || mtimeMs !== this.mtimeMs || ctimeMs !== this.ctimeMs) {
      this.ino = ino;
      this.mtimeMs = mtimeMs;
      this.ctimeMs = ctimeMs;
      this.generation++;
    }
    return this.generation;
  }

  /** Tells every process that keys changed; call after the change is committed. */
  announce(): void {
    const temporary = `${this.path}.${process.pid}.${randomBytes(4).toString("hex")}`;
    writeFileSync(temporary, randomBytes(8));
    renameSync(temporary, this.path);
  }
}
