import type { Clock } from "../../core/clock.js";
import type { ApiKey } from "../../core/keys/api-key.js";
import type { IdempotencyEntry, UsageCount } from "../../core/ports.js";
import { ExecutionTable } from "./execution-table.js";
import type { LearnedEntry, NoteEntry } from "./learned-query-store.js";
import type { MemoryEntry } from "./memory-store.js";
import type { OwnedMessage } from "./message-store.js";
import type { SignalListeners } from "./signal-channel.js";

/**
 * Everything an in-memory store keeps, table by table (each named after the SQL stores'
 * table it stands for, and keyed by its primary key): the database that several stores
 * opened on it share, as processes share a SQLite file or a PostgreSQL database.
 */
export class MemoryData {
  /** `api_keys`, by id. */
  readonly keys = new Map<string, ApiKey>();
  /** `executions` and `runners`. */
  readonly executions: ExecutionTable;
  /** `idempotency`, by (key id, idempotency key). */
  readonly idempotency = new Map<string, IdempotencyEntry>();
  /** `limit_counters`, by (bucket, window length, window start). */
  readonly limitCounts = new Map<string, number>();
  /** `messages`, by id. */
  readonly messages = new Map<string, OwnedMessage>();
  /** `memory`, by owner, then key. */
  readonly memory = new Map<string, Map<string, MemoryEntry>>();
  /** `embeddings`, by (model, text hash). */
  readonly embeddings = new Map<string, Float32Array>();
  /** `usage_minutes`, by (key id, minute start). */
  readonly usage = new Map<string, UsageCount>();
  /** `discover_notes`, by key id. */
  readonly discoverNotes = new Map<string, NoteEntry>();
  /** `learned_queries`, by (owner, skill id, query). */
  readonly learnedQueries = new Map<string, LearnedEntry>();
  /** The listeners of the stores' signal channel; undefined without one (see `MemoryDataOptions`). */
  readonly signalListeners: SignalListeners | undefined;

  constructor(options: MemoryDataOptions = {}) {
    this.signalListeners = options.signals ? new Set() : undefined;
    this.executions = new ExecutionTable(options.sharedClock);
  }
}

export interface MemoryDataOptions {
  /**
   * Whether the stores on this data have a `SignalChannel` between them, as PostgreSQL's
   * have; without one by default, as SQLite's (the core then learns of another store's
   * changes by reading, as it does on the embedded default).
   */
  signals?: boolean;
  /**
   * The clock of the stores on this data, as a PostgreSQL server's is
   * (`RunnerQueue.sharedClockMs`); none by default, as SQLite's (one machine's clock).
   */
  sharedClock?: Clock;
}
