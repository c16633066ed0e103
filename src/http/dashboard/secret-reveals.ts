import type { SafeHtml } from "./html.js";

/** How long a new secret waits for its page: the redirect is followed at once. */
const KEEP_MS = 60_000;

export interface Reveal {
  secret: string;
  title: string;
  note?: SafeHtml;
}

/**
 * New secrets waiting for the one page that shows them. Creating or rolling a key answers
 * with a redirect (POST, 303, GET), so reloading the page that shows the secret sends
 * nothing again: before, a reload re-posted the form and made another live key nobody
 * had asked for. The secret is taken from here as its page is rendered, for the session
 * that made it only, and is gone after a minute unshown; it lives in this process's
 * memory only, like the dashboard's sessions.
 */
export class SecretReveals {
  private readonly pending = new Map<string, Reveal & { expiresAtMs: number }>();

  keep(sessionId: string, keyId: string, reveal: Reveal, nowMs = Date.now()): void {
    for (const [slot, kept] of this.pending) if (kept.expiresAtMs <= nowMs) this.pending.delete(slot);
    this.pending.set(slotOf(sessionId, keyId), { ...reveal, expiresAtMs: nowMs + KEEP_MS });
  }

  /** The secret for this session and key, once; undefined after that, or when it expired. */
  take(sessionId: string, keyId: string, nowMs = Date.now()): Reveal | undefined {
    const slot = slotOf(sessionId, keyId);
    const kept = this.pending.get(slot);
    this.pending.delete(slot);
    return kept && kept.expiresAtMs > nowMs ? kept : undefined;
  }
}

function slotOf(sessionId: string, keyId: string): string {
  return `${sessionId}\u0000${keyId}`;
}
