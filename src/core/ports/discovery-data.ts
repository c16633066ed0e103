// What discovery keeps: cached embeddings and the queries learned from use.

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
