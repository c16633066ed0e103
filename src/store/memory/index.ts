import { type Clock, systemClock } from "../../core/clock.js";
import type { Store } from "../../core/ports.js";
import { withNulRule } from "../nul-rule.js";
import { refuseAfterClose } from "./closed-rule.js";
import { MemoryData } from "./data.js";
import { InMemoryEmbeddingStore } from "./embedding-store.js";
import { InMemoryExecutionStore } from "./execution-store.js";
import { InMemoryIdempotencyStore } from "./idempotency-store.js";
import { InMemoryKeyStore } from "./key-store.js";
import { InMemoryLearnedQueryStore } from "./learned-query-store.js";
import { InMemoryLimiter } from "./limiter.js";
import { InMemoryMemoryStore } from "./memory-store.js";
import { InMemoryMessageStore } from "./message-store.js";
import { InMemorySignalChannel } from "./signal-channel.js";
import { InMemoryUsageStore } from "./usage-store.js";

export { MemoryData, type MemoryDataOptions } from "./data.js";

export interface MemoryStoreOptions {
  /**
   * The data to open: another store's `data` opens a second store on it, which behaves as
   * another process on the same database. A new, empty one when absent.
   */
  data?: MemoryData;
  /** Only throttles `keys.markUsed` and `keys.markRefusedUse`; every other time comes from the caller. */
  clock?: Clock;
}

/** A `Store` with the data it holds, to open another store on. */
export interface InMemoryStore extends Store {
  readonly data: MemoryData;
}

/**
 * The in-memory store: the ports' semantics in plain Maps, for the core's unit tests (no
 * file, no server) and as the specification an adapter can be read against; it passes
 * the contract suite the SQL stores pass (test/store/store-contract.ts). It keeps nothing
 * across restarts, so no configuration selects it: the product's embedded store is SQLite.
 *
 * Every method is atomic, as the SQL stores' transactions are: none awaits, so JavaScript
 * runs no other call in between. What goes in and what comes out are copies.
 */
export function openMemoryStore(options: MemoryStoreOptions = {}): InMemoryStore {
  const data = options.data ?? new MemoryData();
  const signals = data.signalListeners && new InMemorySignalChannel(data.signalListeners);
  let closed = false;
  const ports = {
    keys: new InMemoryKeyStore(data.keys, options.clock ?? systemClock),
    executions: new InMemoryExecutionStore(data.executions),
    idempotency: new InMemoryIdempotencyStore(data.idempotency),
    messages: new InMemoryMessageStore(data.messages),
    memory: new InMemoryMemoryStore(data.memory),
    embeddings: new InMemoryEmbeddingStore(data.embeddings),
    limiter: new InMemoryLimiter(data.limitCounts),
    usage: new InMemoryUsageStore(data.usage),
    learnedQueries: new InMemoryLearnedQueryStore(data.discoverNotes, data.learnedQueries),
    ...(signals && { signals }),
  };
  refuseAfterClose(Object.values(ports), () => closed);
  return withNulRule({
    data,
    ...ports,
    async ping() {
      return !closed;
    },
    /** Nothing here depends on a disk or a server: an error it throws is a bug or bad input, never an outage. */
    isOutage: () => false,
    refusesUntilRestart: () => false,
    /** Closes this store only: the data stays, for the other stores on it. */
    async close() {
      closed = true;
      signals?.close();
    },
  });
}
