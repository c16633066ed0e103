/**
 * What a closed store does, as the SQL stores do (better-sqlite3 throws "The database
 * connection is not open"; a pg pool refuses queries after `end`): every call after
 * `close()` rejects. Without it a core test that reads or writes after closing its store
 * passes here and fails on the product's store.
 *
 * Applied to the ports' async methods: `keys.markUsed` and `keys.markRefusedUse` are
 * coalesced and best-effort on every store, and `signals.subscribe` has nothing to refuse
 * once the channel is closed.
 */
export function refuseAfterClose(ports: object[], isClosed: () => boolean): void {
  for (const port of ports) {
    const methods = port as Record<string, AsyncMethod>;
    for (const name of asyncMethodNames(port)) {
      const original = (methods[name] as AsyncMethod).bind(port);
      methods[name] = (...args) =>
        isClosed() ? Promise.reject(new Error("The in-memory store is closed.")) : original(...args);
    }
  }
}

type AsyncMethod = (...args: unknown[]) => Promise<unknown>;

function asyncMethodNames(port: object): string[] {
  const prototype = Object.getPrototypeOf(port) as object;
  return Object.getOwnPropertyNames(prototype).filter((name) => {
    const value = Object.getOwnPropertyDescriptor(prototype, name)?.value as unknown;
    return typeof value === "function" && value.constructor.name === "AsyncFunction";
  });
}
