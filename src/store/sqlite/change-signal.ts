import { randomBytes } from "node:crypto";
import { closeSync, constants, openSync, readSync, writeSync } from "node:fs";

const TOKEN_BYTES = 8;

/**
 * A small file whose content changes whenever any process changes what it guards, so that
 * processes sharing the data directory can cache it and still see another's change on
 * their very next read: keys (`-keys`: a revoked key is refused on the very next request,
 * contract.md, "API keys") and discover notes (`-notes`: an execution links to the
 * discover answered just before it, whichever process answered). Each change writes fresh random bytes
 * over the file's start; checking is one `pread` on a descriptor held open, which is
 * cheaper than a `stat` of the path (no path lookup, no stats object) and, unlike a
 * modification time, cannot miss two changes made within one clock tick.
 */
export class ChangeSignal {
  private readonly fd: number;
  private readonly seen = Buffer.alloc(TOKEN_BYTES);
  private readonly current = Buffer.alloc(TOKEN_BYTES);
  private generation = 0;
  /** The read that every `version()` call since the last one started will share. */
  private nextRead: Promise<number> | undefined;
  /** Its descriptor may be another file's once closed: nothing reads or writes it then. */
  private closed = false;

  constructor(path: string) {
    // Read-write, created if missing, never truncated: another process may hold it open.
    this.fd = openSync(path, constants.O_RDWR | constants.O_CREAT, 0o600);
  }

  /**
   * A number that changes after every `announce`, by any process, read after this call
   * (this runs on every request). Calls made in one turn of the event loop share one
   * read, made once the turn's I/O callbacks have run: a system call is costly on a
   * virtual machine, and a busy server admits many requests per turn. Sharing a read that
   * starts after the call keeps the promise: a change announced before a request arrived
   * is seen by that request.
   */
  version(): Promise<number> {
    this.nextRead ??= new Promise((resolve, reject) => {
      setImmediate(() => {
        this.nextRead = undefined;
        try {
          resolve(this.readNow());
        } catch (err) {
          reject(err);
        }
      });
    });
    return this.nextRead;
  }

  /**
   * Tells every process that what it guards changed; call after the change is committed. A reader
   * racing the write may see a mix of old and new bytes: that still differs from what it
   * saw before, and its next read sees the new token, so no change goes unnoticed.
   */
  announce(): void {
    if (this.closed) throw new Error("the change signal is closed");
    writeSync(this.fd, randomBytes(TOKEN_BYTES), 0, TOKEN_BYTES, 0);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
  }

  private readNow(): number {
    if (this.closed) throw new Error("the change signal is closed");
    const read = readSync(this.fd, this.current, 0, TOKEN_BYTES, 0);
    // A file shorter than a token (new, or left by an older build) reads as zeros past its end.
    this.current.fill(0, read);
    if (!this.current.equals(this.seen)) {
      this.current.copy(this.seen);
      this.generation++;
    }
    return this.generation;
  }
}
