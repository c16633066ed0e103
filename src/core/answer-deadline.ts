/**
 * `answer`, or a rejection once `ms` have passed without it.
 *
 * Unlike a plain timer (ioredis's `commandTimeout`), a deadline that passes while this
 * thread was busy does not fail an answer already waiting in the socket: when the timer
 * fires it first lets the event loop's I/O phase run once (`setImmediate` runs after it),
 * so a reply that arrived during the stall settles the call. Only a server that truly
 * did not answer in time is taken for lost, not a replica that was briefly starved of CPU.
 * (The Redis limiter's commands use it, and the limit headers of responses that must not
 * wait on Redis.)
 */
export function withinDeadline<T>(answer: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      setImmediate(() => reject(new Error(`${what} did not answer within ${ms} ms`)));
    }, ms);
    answer.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}
