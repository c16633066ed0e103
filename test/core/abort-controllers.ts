/** Runs `work` and counts the `AbortController`s made meanwhile (the global is swapped for a counting one). */
export async function abortControllersMadeBy(work: () => unknown): Promise<number> {
  let made = 0;
  const Original = globalThis.AbortController;
  globalThis.AbortController = class extends Original {
    constructor() {
      super();
      made++;
    }
  };
  try {
    await work();
    return made;
  } finally {
    globalThis.AbortController = Original;
  }
}
