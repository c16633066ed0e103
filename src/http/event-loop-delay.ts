import { type IntervalHistogram, monitorEventLoopDelay } from "node:perf_hooks";

/** Length of one measuring window: long enough to be stable, short enough to be current. */
const WINDOW_MS = 10_000;

export interface EventLoopDelay {
  /** 99th percentile and maximum of the last complete window, in milliseconds. */
  p99Ms: number;
  maxMs: number;
}

/**
 * Event-loop delay over the last ten-second window, for `/readyz`: how late timers and
 * I/O callbacks run, the first sign that something blocks the main thread.
 */
export class EventLoopDelayMonitor {
  private readonly histogram: IntervalHistogram = monitorEventLoopDelay({ resolution: 10 });
  private last: EventLoopDelay = { p99Ms: 0, maxMs: 0 };
  private readonly timer: NodeJS.Timeout;

  constructor() {
    this.histogram.enable();
    this.timer = setInterval(() => {
      this.last = { p99Ms: toMs(this.histogram.percentile(99)), maxMs: toMs(this.histogram.max) };
      this.histogram.reset();
    }, WINDOW_MS);
    this.timer.unref();
  }

  get current(): EventLoopDelay {
    // Before the first window ends, what has been seen so far.
    if (this.histogram.count > 0 && this.last.maxMs === 0) {
      return { p99Ms: toMs(this.histogram.percentile(99)), maxMs: toMs(this.histogram.max) };
    }
    return this.last;
  }

  close(): void {
    clearInterval(this.timer);
    this.histogram.disable();
  }
}

function toMs(nanoseconds: number): number {
  return Math.round(nanoseconds / 10_000) / 100;
}
