/**
 * Wraps a loader so it runs on first use and its result is shared afterwards. Skills
 * import their heavier libraries (mathjs, undici, Ajv, luxon, csv-parse) this way so
 * that starting the service does not pay for skills nobody has called yet. A failed
 * load is not cached: the next call tries again.
 */
export function lazy<T>(load: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    pending ??= load().catch((err: unknown) => {
      pending = undefined;
      throw err;
    });
    return pending;
  };
}
