/** Time as a port, so windows, expiry and backoff are tested exactly without sleeping. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock tests move by hand. */
export class ManualClock implements Clock {
  constructor(private ms = Date.UTC(2026, 0, 1)) {}
  now(): number {
    return this.ms;
  }
  set(ms: number): void {
    this.ms = ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}

let lastMs = Number.NaN;
let lastIso = "";

/** ISO 8601 UTC with milliseconds and `Z` (contract.md, "Execution record"). */
export function isoTimestamp(ms: number): string {
  // An execution stamps several times within one millisecond, and so do requests under
  // load: formatting a date is costly enough on the hot path to remember the last one.
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
}
