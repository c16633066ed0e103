// Request counts per key and minute, for the dashboard's usage charts.

/**
 * Requests of one key in one minute: those admitted, those refused with 429, and those
 * refused because the key no longer works (revoked or expired).
 */
export interface UsageCount {
  keyId: string;
  /** Unix seconds of the minute's start (a multiple of 60). */
  minuteStart: number;
  accepted: number;
  limited: number;
  refused: number;
}

/** Requests summed over one bucket of a series. */
export interface UsagePoint {
  /** Unix seconds of the bucket's start (a multiple of the bucket length). */
  start: number;
  accepted: number;
  limited: number;
  refused: number;
}

export interface UsageSeriesQuery {
  /** One key's requests; every key's summed when absent. */
  keyId?: string;
  /** Unix seconds, inclusive; minutes starting before it are left out. */
  fromSeconds: number;
  /** Unix seconds, exclusive. */
  toSeconds: number;
  /** Bucket length in seconds, a multiple of 60 (60, 3600, 86400). Buckets align to the epoch. */
  bucketSeconds: number;
}

/**
 * Request counts per key and minute, for the dashboard's usage charts. Counting happens in
 * memory off the request path; this port only receives batches of counts and answers
 * series, so it stays cheap for any adapter.
 */
export interface UsageStore {
  /** Adds each count to the stored one of the same key and minute (created at 0), all in one batch. */
  add(counts: UsageCount[]): Promise<void>;
  /** The buckets of the range that hold any request, oldest first; empty buckets are left out. */
  series(query: UsageSeriesQuery): Promise<UsagePoint[]>;
  /** Deletes the minutes that start before `beforeSeconds`; returns how many rows went. */
  deleteBefore(beforeSeconds: number): Promise<number>;
}
