/** Query latencies in milliseconds, summarised as the issue asks (p50, p99). */
export interface LatencySummary {
  count: number;
  p50Ms: number;
  p99Ms: number;
}

/** Nearest-rank percentile of an ascending list: the value below which `fraction` of them fall. */
export function percentile(sortedMs: readonly number[], fraction: number): number {
  if (sortedMs.length === 0) return Number.NaN;
  const rank = Math.ceil(fraction * sortedMs.length);
  return sortedMs[Math.min(sortedMs.length - 1, Math.max(0, rank - 1))] ?? Number.NaN;
}

export function summariseLatency(timesMs: readonly number[]): LatencySummary {
  const sorted = [...timesMs].sort((a, b) => a - b);
  return { count: sorted.length, p50Ms: percentile(sorted, 0.5), p99Ms: percentile(sorted, 0.99) };
}
