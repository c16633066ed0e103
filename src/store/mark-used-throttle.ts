import type { Clock } from "../core/clock.js";

/** How often one process writes a key's `last_used_at` (or `last_refused_at`) at most: it is informational. */
export const MARK_USED_INTERVAL_MS = 30_000;

/**
 * Decides which `markUsed` calls are written: at most one per key per
 * `MARK_USED_INTERVAL_MS` in this process, since it runs on every authenticated request.
 * `markRefusedUse` has a throttle of its own, so that neither hides the other's write.
 */
export class MarkUsedThrottle {
  /** When this process last let a write through per key (clock milliseconds). */
  private readonly lastMarkedAt = new Map<string, number>();

  constructor(private readonly clock: Clock) {}

  /** True when this use should be written now. */
  admit(id: string): boolean {
    const nowMs = this.clock.now();
    const last = this.lastMarkedAt.get(id);
    if (last !== undefined && nowMs - last < MARK_USED_INTERVAL_MS) return false;
    this.lastMarkedAt.set(id, nowMs);
    if (this.lastMarkedAt.size > 10_000) this.forgetOldMarks(nowMs);
    return true;
  }

  /** Keeps the map from growing with every key ever seen. */
  private forgetOldMarks(nowMs: number): void {
    for (const [id, markedAt] of this.lastMarkedAt) {
      if (nowMs - markedAt >= MARK_USED_INTERVAL_MS) this.lastMarkedAt.delete(id);
    }
  }
}
