/**
 * The ports the core needs from storage (DESIGN.md): interfaces only. Adapters live in
 * `src/store/` (SQLite embedded; PostgreSQL + Redis for scale-out) and all pass one
 * contract test suite. Methods are async so that a networked adapter fits, except the few
 * that must answer at once (`KeyStore.markUsed`, `Store.isOutage`, `SignalChannel.subscribe`).
 */

import type { ExecutionStatus, StoredExecution } from "./execution/record.js";
import type { ApiKey } from "./keys/api-key.js";
import type { ProgressUpdate, StoredMessage } from "./skills/skill.js";

export interface KeyStore {
  insert(key: ApiKey): Promise<void>;
  findByHash(hash: string): Promise<ApiKey | undefined>;
  findById(id: string): Promise<ApiKey | undefined>;
  /** All keys, newest first. */
  list(): Promise<ApiKey[]>;
  /** Sets `revokedAt` unless already revoked; false when no such key. */
  revoke(id: string, revokedAt: string): Promise<boolean>;
  /**
   * Makes the key expire at `expiresAt`, or keeps its current expiry when that is earlier
   * (a key is never given a longer life this way); false when no such key. Used by a roll.
   */
  expire(id: string, expiresAt: string): Promise<boolean>;
  /** Sets the key's name, plan and limits; false when no such key. */
  update(id: string, changes: Pick<ApiKey, "name" | "plan" | "limits">): Promise<boolean>;
  /** Records use of a key; may be coalesced and written later (it is not on the critical path). */
  markUsed(id: string, usedAt: string): void;
}

export interface ExecutionListQuery {
  /** Only this owner's records; every owner's when absent (the dashboard's administrator view). */
  owner?: string;
  /** Only records started with this key. */
  keyId?: string;
  status?: ExecutionStatus;
  skillId?: string;
  limit: number;
  /** Continue after the record with this id: newest first, so with the ids below it. */
  after?: string;
  /** Start at the record with this id, included: the ids at or below it. */
  startAt?: string;
}

/** The size of an execution's result, as `listResultSizes` reads it. */
export interface ExecutionResultSize {
  id: string;
  /** Bytes of the result's JSON (UTF-8) as stored; 0 for a record without a result. */
  resultBytes: number;
}

export interface ExecutionStore {
  /**
   * Inserts or replaces an execution. Resolves once the write is committed (durable), so a
   * response sent afterwards never describes a record that a crash could lose. Adapters
   * may group concurrent saves into one commit. A terminal record is never replaced
   * (contract.md: it never changes again); such a save succeeds without effect, and
   * resolves false (the record stored is not the one given: read it). True otherwise.
   */
  save(execution: StoredExecution): Promise<boolean>;
  get(id: string): Promise<StoredExecution | undefined>;
  /**
   * Newest first, which is descending id order: an execution's id begins with its
   * `created_at` (see `newRecord`), so no adapter needs an index of the times.
   */
  list(query: ExecutionListQuery): Promise<StoredExecution[]>;
  /**
   * The ids and result sizes of the records `list` would return for `query`, without
   * reading the results themselves: a listing bounds its page in bytes with these before
   * it reads any large result (see `pageOfExecutions`).
   */
  listResultSizes(query: ExecutionListQuery): Promise<ExecutionResultSize[]>;
  /** Registers or refreshes a runner (a process that runs executions). */
  heartbeat(runner: RunnerInfo): Promise<void>;
  /** Removes a runner that stops cleanly. */
  retireRunner(runnerId: string): Promise<void>;
  /**
   * Non-terminal executions whose runner is gone (see `RunnerInfo`), reassigned to
   * `runnerId` in one atomic step so that two processes never both take one.
   */
  claimOrphans(
    runnerId: string,
    isRunnerGone: (runner: RunnerInfo | undefined) => boolean,
  ): Promise<ClaimedOrphan[]>;
  /**
   * The shared queue: takes up to `limit` executions that are still `queued`, were created
   * before `queuedBefore` and are held by another runner (alive or not: a busy runner's
   * backlog may be run by any runner with room), oldest first, and in one atomic step
   * stores each as `startRunning` makes it from the record as stored, reassigned to
   * `runnerId` (the caller marks it running and masks its params: a running record is
   * never run from its stored params), so that no two runners take the same one and no
   * running record holds credentials. Returns them as stored, with their params whole, as
   * the run needs them.
   */
  takeQueued(
    runnerId: string,
    limit: number,
    queuedBefore: string,
    startRunning: (taken: StoredExecution) => StoredExecution,
  ): Promise<StoredExecution[]>;
  /**
   * Saves `running` (the record the caller moved from `queued` to `running`, with its params
   * masked), every field, only if the stored record is still `queued` and held by
   * `running.runnerId`; true when it did. A runner calls it before running a queued
   * execution, so that an execution taken by another runner (`takeQueued`,
   * `claimOrphans`) or cancelled meanwhile is not run as well; a refused start leaves the
   * stored record as it was, its params whole.
   */
  start(running: StoredExecution): Promise<boolean>;
  /** Deletes terminal records finished before `finishedBefore`; returns how many. */
  deleteFinishedBefore(finishedBefore: string): Promise<number>;
}

/** An execution taken over from a gone runner (`claimOrphans`), now `runnerId`'s. */
export interface ClaimedOrphan extends StoredExecution {
  /** Unix milliseconds of the gone runner's last heartbeat; undefined when it left no row. */
  lastHeartbeatAt: number | undefined;
}

/** A process that runs executions, with what is needed to tell whether it is still alive. */
export interface RunnerInfo {
  id: string;
  /**
   * Where `pid` names a process: the hostname with the boot id and PID namespace
   * (`runnerHost`). Only a runner with the same `host` may judge another by its pid.
   */
  host: string;
  pid: number;
  /** Unix milliseconds of the last heartbeat. */
  heartbeatAt: number;
}

export interface IdempotencyEntry {
  keyId: string;
  idempotencyKey: string;
  /** SHA-256 of the request (skill, params, async, timeout) that first used the key. */
  requestHash: string;
  executionId: string;
  /** The HTTP-independent outcome kind of the first call: 'sync' answers 200, 'async' 202. */
  mode: "sync" | "async";
  createdAt: string;
  expiresAt: string;
}

export interface IdempotencyStore {
  /**
   * Stores the entry unless a live (not expired) entry exists for the same key id and
   * idempotency key; returns the existing one in that case. Atomic.
   */
  reserve(
    entry: IdempotencyEntry,
  ): Promise<{ reserved: true } | { reserved: false; existing: IdempotencyEntry }>;
  /**
   * Deletes the entry of `executionId` when it still holds the key: a reservation whose
   * execution was refused before it was stored, so that a repeat can run.
   */
  withdraw(keyId: string, idempotencyKey: string, executionId: string): Promise<void>;
  /**
   * Puts `entry` in place of the entry of the same key id and idempotency key, if that one
   * still names `abandonedExecutionId`: a reservation whose execution was never stored.
   * Atomic (one compare-and-set); true when it replaced it, false when another call did first.
   */
  takeOver(entry: IdempotencyEntry, abandonedExecutionId: string): Promise<boolean>;
}

export interface LimitWindow {
  limit: number;
  windowSeconds: number;
}

export interface WindowState {
  limit: number;
  remaining: number;
  /** Unix seconds when this window ends. */
  resetAtSeconds: number;
  windowSeconds: number;
}

/** An expected outcome, not an error: a refused check is `{allowed:false}`. */
export interface LimitDecision {
  allowed: boolean;
  /** One entry per requested window, in the same order. */
  windows: WindowState[];
}

export interface Limiter {
  /**
   * Checks every window of `bucket` and, only if all allow it, counts one request in
   * each, atomically (a refused request counts in none). Windows are fixed and aligned
   * to the Unix epoch, so the day window starts at UTC midnight.
   */
  consume(bucket: string, windows: LimitWindow[], nowMs: number): Promise<LimitDecision>;
  /** The same answer without counting. */
  peek(bucket: string, windows: LimitWindow[], nowMs: number): Promise<LimitDecision>;
  /**
   * Claims up to `wanted` requests of `bucket` at once (a lease), atomically: grants
   * g = min(wanted, remaining in every window), which is 0 when any window is exhausted,
   * and counts g in every window. The store never grants more than a window's limit in
   * total, so callers that admit only granted requests can never over-admit, whichever
   * process they run in. `windows` describe the shared state after the grant
   * (remaining = limit − count, never below 0). `consume` is `acquire` of 1.
   */
  acquire(bucket: string, windows: LimitWindow[], wanted: number, nowMs: number): Promise<LimitGrant>;
  /**
   * Gives back `count` requests that an `acquire` at `grantedAtMs` granted and nobody
   * used: lowers, by `count` and never below 0, the counters of the windows that
   * contained `grantedAtMs`. A window that has rolled over since is left as it is for
   * every current purpose: the give-back lands on the ended window's counter, which
   * limits nothing any more, never on the new window's (whose count never included
   * these requests). So a lease dropped when the minute rolls over still returns its
   * unused requests to the day window.
   */
  release(bucket: string, windows: LimitWindow[], count: number, grantedAtMs: number): Promise<void>;
  /**
   * Present on a limiter that counts in a shared service (Redis) and falls back when that
   * service is out of reach: true while it does (SKILLPORT_REDIS_DOWN applies). Read
   * without I/O, for `/readyz` and `/metrics`.
   */
  readonly degraded?: boolean;
}

/** What `Limiter.acquire` granted. */
export interface LimitGrant {
  /** Requests granted, 0 ≤ granted ≤ wanted; 0 when any window is exhausted. */
  granted: number;
  /** One entry per requested window, in the same order, after the grant. */
  windows: WindowState[];
}

export interface MessageStore {
  insert(owner: string, message: StoredMessage): Promise<void>;
  /**
   * Newest first. `before` is a message id of the same owner: only strictly older
   * messages are returned (an unknown id, or another owner's, returns none).
   */
  list(
    owner: string,
    options: { channel?: string; limit: number; before?: string },
  ): Promise<StoredMessage[]>;
  /** Whether the owner has a message with this id (another owner's id is not theirs). */
  has(owner: string, id: string): Promise<boolean>;
}

export interface MemoryStore {
  get(owner: string, key: string): Promise<{ value: unknown; updatedAt: string } | undefined>;
  set(owner: string, key: string, value: unknown, updatedAt: string): Promise<void>;
  delete(owner: string, key: string): Promise<boolean>;
  /** Keys in order; `after` continues a listing after that key (keyset paging). */
  list(
    owner: string,
    options: { prefix?: string; after?: string; limit: number },
  ): Promise<{ key: string; updatedAt: string }[]>;
}

/** A cached embedding: the vector a model gave for a text, found again by the text's hash. */
export interface CachedEmbedding {
  /** SHA-256 (hex) of the exact text that was embedded. */
  textHash: string;
  vector: Float32Array;
}

/**
 * Embeddings computed once and kept (issue 6): discovery embeds each skill's text once per
 * model, so a restart or a second process reuses the vectors instead of running the model
 * again. Keyed by content, so a changed skill simply misses and is embedded anew.
 */
export interface EmbeddingStore {
  /** The cached vectors of `model` among `textHashes` (missing hashes are absent). */
  getMany(model: string, textHashes: readonly string[]): Promise<CachedEmbedding[]>;
  /** Stores vectors; an existing (model, hash) is replaced. */
  putMany(model: string, embeddings: readonly CachedEmbedding[]): Promise<void>;
}

/** Requests of one key in one minute: those admitted and those refused with 429. */
export interface UsageCount {
  keyId: string;
  /** Unix seconds of the minute's start (a multiple of 60). */
  minuteStart: number;
  accepted: number;
  limited: number;
}

/** Requests summed over one bucket of a series. */
export interface UsagePoint {
  /** Unix seconds of the bucket's start (a multiple of the bucket length). */
  start: number;
  accepted: number;
  limited: number;
}

export interface UsageSeriesQuery {
  /** One key's requests; every key's summed when absent. */
  keyId?: string;
  /** Unix seconds, inclusive; minutes starting before it are left out. */
  fromSeconds: number;
  /** Unix seconds, exclusive. */
  toSeconds: number;
  /** Bucket length in seconds, a multiple of 60 (60, 3600, 86400). Buckets align to the epoch. */
  bucketSeconds: number;
}

/**
 * Request counts per key and minute, for the dashboard's usage charts. Counting happens in
 * memory off the request path; this port only receives batches of counts and answers
 * series, so it stays cheap for any adapter.
 */
export interface UsageStore {
  /** Adds each count to the stored one of the same key and minute (created at 0), all in one batch. */
  add(counts: UsageCount[]): Promise<void>;
  /** The buckets of the range that hold any request, oldest first; empty buckets are left out. */
  series(query: UsageSeriesQuery): Promise<UsagePoint[]>;
  /** Deletes the minutes that start before `beforeSeconds`; returns how many rows went. */
  deleteBefore(beforeSeconds: number): Promise<number>;
}

/** A key's latest discover: what learning from use links a following execution to. */
export interface DiscoverNote {
  keyId: string;
  owner: string;
  query: string;
  /** Unix milliseconds. */
  at: number;
  /**
   * The skill ids the discover's answer offered (its results). An execution after the
   * discover links its skill to the query when the discover offered it, or when it is the
   * key's first execution after the discover (see `LearnedQueryStore.claimFirstExecution`).
   */
  offered: readonly string[];
}

/** A query that led an owner to execute a skill. */
export interface LearnedQuery {
  skillId: string;
  query: string;
  /** How many discovers with this query were followed by an execution of the skill. */
  count: number;
  /** Unix milliseconds of the latest such execution. */
  lastAt: number;
}

/** One (query → executed skill) link to count. */
export interface LearnedQueryEvent {
  owner: string;
  query: string;
  skillId: string;
  /** `at` of the discover the execution followed: one discover counts once per skill. */
  discoveredAt: number;
  /** Unix milliseconds of the execution. */
  at: number;
}

/** How many learned queries are kept; the least recently used go first. */
export interface LearnedQueryCaps {
  perSkill: number;
  perOwner: number;
}

/**
 * Learning from use (issue 6): each key's latest discover, and per owner the queries that
 * were followed by executing a skill. Both live in the store, not in one process's memory,
 * so a discover answered by one replica and an execution on another still link up.
 */
export interface LearnedQueryStore {
  /**
   * Stores each key's latest discover, replacing its previous one: the note written last
   * wins (of two in one call, the one given last), whatever the times they carry. A
   * discover's note is written before its answer leaves, so write order is the order in
   * which a client saw its discovers answered, while the notes' times come from each
   * process's clock: a replica whose clock is behind must still replace the note of one
   * that is ahead.
   */
  noteDiscovers(notes: readonly DiscoverNote[]): Promise<void>;
  /** The key's latest discover, if any. */
  lastDiscover(keyId: string): Promise<DiscoverNote | undefined>;
  /**
   * Claims the key's first execution after its discover taken at `discoveredAt`: true for
   * exactly one call per note, across every process sharing the store (a conditional
   * update of a flag on the note, which `noteDiscovers` clears); false once claimed, or
   * when the key's latest note is no longer that discover.
   */
  claimFirstExecution(keyId: string, discoveredAt: number): Promise<boolean>;
  /**
   * Adds one to (owner, query, skill), created at 1, unless the same discover was already
   * counted for it (a stored `discoveredAt` at or after this one); then keeps at most
   * `caps.perSkill` queries of that owner and skill and `caps.perOwner` of that owner,
   * deleting the least recently executed. True when it counted.
   */
  record(event: LearnedQueryEvent, caps: LearnedQueryCaps): Promise<boolean>;
  /** The owner's learned queries, most recently executed first, at most `limit`. */
  list(owner: string, limit: number): Promise<LearnedQuery[]>;
  /** Deletes discover notes taken before `beforeMs` (they can no longer link anything); returns how many. */
  deleteNotesBefore(beforeMs: number): Promise<number>;
  /**
   * Forgets what the owner's use taught: its learned queries (of one skill, or all) and its
   * keys' latest discovers, so that no later execution links to a discover made before.
   * Returns how many learned queries went.
   */
  forget(owner: string, skillId?: string): Promise<number>;
}

/**
 * What processes sharing a store tell each other about executions. Kept small (an id, a
 * status): a process that wants the record reads it from the store.
 */
export type StoreSignal =
  | { type: "status"; executionId: string; status: ExecutionStatus; from: string }
  | { type: "progress"; executionId: string; update: ProgressUpdate; from: string }
  /** Asks whichever process holds the execution to cancel it. */
  | { type: "cancel"; executionId: string; from: string };

/**
 * A broadcast channel between every process sharing the store (PostgreSQL LISTEN/NOTIFY).
 * Delivery is prompt but not guaranteed (a dropped connection loses signals), so
 * listeners still re-read the store now and then. Every process receives its own signals too.
 */
export interface SignalChannel {
  publish(signal: StoreSignal): Promise<void>;
  subscribe(listener: (signal: StoreSignal) => void): () => void;
}

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
  /** Flushes pending writes and closes. */
  close(): Promise<void>;
}
