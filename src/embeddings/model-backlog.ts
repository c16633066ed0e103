import { MAX_BATCH_CHARS, MAX_BATCH_TEXTS } from "./embedding-worker-source.js";

/**
 * A request this long unanswered says the model runs slower than a full pass takes on a
 * quiet machine (~0.3–0.4 s): its cores are busy with other work (a flood of requests on
 * two cores made short passes take seconds), and a text sent now would wait that long too.
 */
export const MAX_WAIT_MS = 400;

/** Texts sent to the model together, and when. */
export interface Sent {
  texts: number;
  chars: number;
  at: number;
}

/**
 * The texts sent to the model and not answered yet, to tell whether a text sent now would
 * wait behind at least a whole pass of its work (`busy`).
 */
export class ModelBacklog {
  private texts = 0;
  private chars = 0;
  /** Unanswered, oldest first (a Set keeps insertion order). */
  private readonly unanswered = new Set<Sent>();

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** Texts sent now; pass the result to `answered` once they are (or failed). */
  sent(texts: readonly string[]): Sent {
    const sent = {
      texts: texts.length,
      chars: texts.reduce((sum, text) => sum + text.length, 0),
      at: this.now(),
    };
    this.texts += sent.texts;
    this.chars += sent.chars;
    this.unanswered.add(sent);
    return sent;
  }

  answered(sent: Sent): void {
    if (!this.unanswered.delete(sent)) return;
    this.texts -= sent.texts;
    this.chars -= sent.chars;
  }

  /** Texts unanswered. */
  get size(): number {
    return this.texts;
  }

  /**
   * A whole pass is waiting, by count or by characters as the thread batches them, or the
   * oldest text has waited longer than a pass takes (`MAX_WAIT_MS`). Counting texts alone let
   * 63 long ones wait (~1 s, several passes); counting alone, however, cannot see a model
   * slowed down by a busy machine.
   */
  get busy(): boolean {
    if (this.texts >= MAX_BATCH_TEXTS || this.chars >= MAX_BATCH_CHARS) return true;
    const oldest = this.unanswered.values().next().value;
    return oldest !== undefined && this.now() - oldest.at > MAX_WAIT_MS;
  }
}
