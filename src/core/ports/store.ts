// Everything the core keeps, behind one handle: the ports composed, and the store's health.

import type { EmbeddingStore, LearnedQueryStore } from "./discovery-data.js";
import type { ExecutionStore } from "./execution-store.js";
import type { IdempotencyStore } from "./idempotency-store.js";
import type { KeyStore } from "./key-store.js";
import type { Limiter } from "./limiter.js";
import type { MemoryStore, MessageStore } from "./owner-data.js";
import type { SignalChannel } from "./signals.js";
import type { UsageStore } from "./usage-store.js";

/** Everything the core keeps, behind one handle. */
export interface Store {
  keys: KeyStore;
  executions: ExecutionStore;
  idempotency: IdempotencyStore;
  messages: MessageStore;
  memory: MemoryStore;
  embeddings: EmbeddingStore;
  limiter: Limiter;
  usage: UsageStore;
  learnedQueries: LearnedQueryStore;
  /**
   * Signals between the processes sharing the store; absent when the store has no channel
   * (SQLite: processes then learn of each other's changes by reading the store).
   */
  signals?: SignalChannel;
  /** True when the store can serve: it answers, and its writes land (for `/readyz`). */
  ping(): Promise<boolean>;
  /**
   * True when `err`, thrown by one of this store's methods, means the store cannot serve
   * right now (disk full or failing, database unreachable or restarting), not that the
   * request or the code is wrong: the core answers it `service_unavailable`, which
   * clients retry, instead of `internal_error` (see `toServiceError`). Only the adapter
   * knows its driver's errors, so it classifies them; it must not rely on `this`, so that
   * a composed store can pass it on as it is.
   */
  isOutage(err: unknown): boolean;
  /**
   * True when `err`, an outage thrown by one of this store's writes, means that the store
   * refuses every write until the process restarts, so that retrying one before then is
   * in vain (SQLite: its database or WAL file was deleted or replaced while open). Like
   * `isOutage`, it must not rely on `this`.
   */
  refusesUntilRestart(err: unknown): boolean;
  /** Flushes pending writes and closes. */
  close(): Promise<void>;
}
