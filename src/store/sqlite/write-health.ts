import { isSqliteOutage } from "./outage.js";

/**
 * Whether the store's writes land, for readiness: false from a write that failed with an
 * outage (disk full, I/O error, read-only file…) until a write succeeds again. `select 1`
 * cannot tell: it reads nothing from the disk, so it succeeds while every write fails
 * (audit 18, finding 2). Once space is freed the next write succeeds and the store is
 * ready again by itself.
 *
 * The writes reported are those made all the time: the group commit's (every execution,
 * a key's last use), the limiter's (requests), and the runner's heartbeat, which runs
 * every few seconds even without traffic, so that a replica a load balancer took out
 * for its failing writes notices their return without a request.
 */
export class WriteHealth {
  private failing = false;

  /** True unless the latest write reported failed with an outage. */
  get ok(): boolean {
    return !this.failing;
  }

  /** Runs a synchronous write and reports how it went; its result or error passes through. */
  track<T>(write: () => T): T {
    let result: T;
    try {
      result = write();
    } catch (err) {
      this.failed(err);
      throw err;
    }
    this.succeeded();
    return result;
  }

  succeeded(): void {
    this.failing = false;
  }

  /** Only an outage counts: a write refused for its own sake (a constraint) says nothing of the disk. */
  failed(err: unknown): void {
    if (isSqliteOutage(err)) this.failing = true;
  }
}
