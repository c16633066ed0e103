/** A value loaded on first use: call it to get (and start loading) the value. */
export interface Lazy<T> {
  (): Promise<T>;
  /** The value if it has finished loading, without starting a load. */
  loaded(): T | undefined;
}

/**
 * Wraps a loader so it runs on first use and its result is shared afterwards. Skills
 * import their heavier libraries (mathjs, undici, Ajv, luxon, csv-parse) this way so
 * that starting the service does not pay for skills nobody has called yet. A failed
 * load is not cached: the next call tries again.
 */
export function lazy<T>(load: () => Promise<T>): Lazy<T> {
  let pending: Promise<T> | undefined;
  let value: { current: T } | undefined;
  const get = () => {
    pending ??= load().then(
      (loaded) => {
        value = { current: loaded };
        return loaded;
      },
      (err: unknown) => {
        pending = undefined;
        throw err;
      },
    );
    return pending;
  };
  return Object.assign(get, { loaded: () => value?.current });
}
