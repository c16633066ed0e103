import { withinDeadline } from "../answer-deadline.js";
import type { Clock } from "../clock.js";
import { CoalescedRuns } from "../coalesced-runs.js";
import type { Logger } from "../logger.js";
import type { DiscoverNote, LearnedQuery, LearnedQueryCaps, LearnedQueryStore } from "../ports.js";
import { collapseWhitespace } from "./collapse-whitespace.js";
import { holdsSecret } from "./query-secrets.js";
import type { SemanticIndex } from "./semantic-index.js";
import { UsageEvidence } from "./usage-evidence.js";

/** Who asks: discovery learns per key (the discover → execute link) and per owner (the evidence). */
export interface Caller {
  id: string;
  owner: string;
}

export interface UsageLearningOptions {
  /** An execution counts for the key's latest discover only within this many milliseconds of it. */
  windowMs: number;
  /** Learned queries kept per owner and skill, and per owner. */
  caps?: LearnedQueryCaps;
  /** Past queries held in memory across all owners; least recently searched owners go first. */
  maxCachedQueries?: number;
  /**
   * An owner's evidence in memory is never older than this (README: another process's
   * learning is seen within a minute): re-read in the background from half of it, and
   * waited for past it.
   */
  refreshMs?: number;
  /**
   * How long a discover waits at most for its note to be stored. Learning is best effort:
   * a store slow to write (a lock held by the hourly prune, a PostgreSQL in trouble) must
   * not hold back every discover of the process, which all wait on the same write.
   */
  noteWaitMs?: number;
}

/**
 * 10,000 queries per owner bound its memory (~20 MB of vectors, a few MB of text and
 * index). 200 per skill keeps one skill from taking it all; 50 was measured 3 points of
 * nDCG@10 lower on metatool-dev, whose busiest tools have 100–300 queries.
 */
export const DEFAULT_LEARNED_QUERY_CAPS: LearnedQueryCaps = { perSkill: 200, perOwner: 10_000 };
const DEFAULT_MAX_CACHED_QUERIES = 50_000;
const DEFAULT_REFRESH_MS = 60_000;
const DEFAULT_NOTE_WAIT_MS = 1_000;
/** Keys whose counted skills this process remembers (see `counted`). */
const MAX_COUNTED_KEYS = 10_000;

/** See `UsageLearning.counted`. */
interface CountedEntry {
  discoveredAt: number;
  skills: Set<string>;
  claimTried: boolean;
}

interface OwnerCache {
  evidence: UsageEvidence;
  loadedAt: number;
}

/**
 * The results of a discover that count as offered: those an agent reading the answer
 * chooses among. A skill further down a long answer (10 by default, half a small catalog)
 * that the agent runs later is its next step, not its answer: learned, it would tie with
 * the right skill for the query (`crypto.hash` after "send a message to a channel").
 */
export const OFFERED_RANKS = 3;

/** True when the query has a letter or a digit: only such a query can be learned from. */
function hasWords(query: string): boolean {
  return /[\p{L}\p{N}]/u.test(query);
}

/** The query of a discover noted without its text (it held a secret): nothing is learned from it. */
const UNLEARNABLE_QUERY = "";

/**
 * True when a noted or learned query may be learned from and shown back to the owner's
 * keys: it has words and holds no secret.
 */
function isLearnable(query: string): boolean {
  return hasWords(query) && !holdsSecret(query);
}

/**
 * Learning from use (issue 6). Each key's latest discover is noted in the store, with the
 * skills its answer offered, before the answer leaves, and an execution reads the key's
 * latest note from the store after it arrived: whichever process answered the discover,
 * an execution the client sends after the answer links to that discover, never to an
 * earlier one (README: a discover answered by one replica links to an execution on
 * another). When the execution comes within the window, and its skill was offered or it
 * is the key's first execution after the discover, the store counts (query → skill) for
 * the key's owner. An owner's learned queries become evidence for that owner's later
 * searches, and only theirs.
 */
export class UsageLearning {
  readonly windowMs: number;
  private readonly caps: LearnedQueryCaps;
  private readonly maxCachedQueries: number;
  private readonly refreshMs: number;
  private readonly noteWaitMs: number;
  /** Notes waiting for the next write, by key (a key's later discover replaces its earlier). */
  private readonly unwritten = new Map<string, DiscoverNote>();
  /** Discovers arriving while a write is under way are written together in the next one. */
  private readonly noteWrites = new CoalescedRuns(() => this.writeNotes());
  /** By key, the read of its latest note under way (see `latestNote`). */
  private readonly noteReads = new Map<string, CoalescedRuns<DiscoverNote | undefined>>();
  /**
   * By key: the latest discover this process has seen executions after, the skills it has
   * considered since (counted or not), and whether it has tried to claim the key's first
   * execution after that discover. The store counts a discover → skill link once, so an
   * agent executing again and again after one discover needs no write after its first (it
   * cost a transaction on every execution: a fifth of an execute's CPU); and only the
   * first execution this process sees after a discover can be the key's first.
   */
  private readonly counted = new Map<string, CountedEntry>();
  /** Owners' evidence, least recently searched first. */
  private readonly owners = new Map<string, OwnerCache>();
  private readonly loading = new Map<string, Promise<OwnerCache>>();
  private readonly recording = new Set<Promise<void>>();

  constructor(
    private readonly store: LearnedQueryStore,
    private readonly semantic: SemanticIndex | undefined,
    private readonly clock: Clock,
    private readonly logger: Logger,
    options: UsageLearningOptions,
  ) {
    this.windowMs = options.windowMs;
    this.caps = options.caps ?? DEFAULT_LEARNED_QUERY_CAPS;
    this.maxCachedQueries = options.maxCachedQueries ?? DEFAULT_MAX_CACHED_QUERIES;
    this.refreshMs = options.refreshMs ?? DEFAULT_REFRESH_MS;
    this.noteWaitMs = options.noteWaitMs ?? DEFAULT_NOTE_WAIT_MS;
  }

  /**
   * Notes the caller's discover as its key's latest, with the skill ids its answer
   * `offered` (best first; the first `OFFERED_RANKS` count); resolves once the note is in the store, so that an execution sent after the
   * answer finds it in any process, or after `noteWaitMs` if the write takes longer (the
   * note is still written). Never rejects (a failed write is logged: learning is best
   * effort). A query without a letter or digit is not noted: it cannot be learned, and
   * would unlink the key's latest real discover. A query holding a secret (`holdsSecret`)
   * is noted without its text, as a discover that teaches nothing: the secret is not
   * stored, and an execution that follows links to no query (not to an earlier discover's).
   */
  noteDiscover(caller: Caller, query: string, offered: readonly string[]): Promise<void> {
    if (!hasWords(query)) return Promise.resolve();
    this.unwritten.set(caller.id, {
      keyId: caller.id,
      owner: caller.owner,
      query: holdsSecret(query) ? UNLEARNABLE_QUERY : collapseWhitespace(query),
      at: this.clock.now(),
      offered: offered.slice(0, OFFERED_RANKS),
    });
    // The write goes on past the wait; a failed one was logged by `writeNotes`.
    return withinDeadline(this.noteWrites.run(), this.noteWaitMs, "a discover note's write").catch(() => {});
  }

  /**
   * The caller started executing `skillId`: if its latest discover (here or in any process
   * sharing the store) was within the window, learn (query → skill) for the caller's owner
   * when that discover offered the skill, or when this is the key's first execution after
   * the discover, whatever the skill (an agent that found the skill some other way after
   * the discover missed it is the case learning helps most). A later execution of a skill
   * the discover did not offer is another step of the agent's work, not an answer to the
   * query: it teaches nothing. Never rejects (a failure is logged: learning is best effort).
   */
  noteExecution(caller: Caller, skillId: string): Promise<void> {
    const done = this.learn(caller, skillId)
      .catch((err: unknown) =>
        this.logger.warn({ err, skill_id: skillId }, "could not learn from an execution"),
      )
      .finally(() => this.recording.delete(done));
    this.recording.add(done);
    return done;
  }

  /**
   * The owner's learned queries, ready to search, or undefined when there are none. The
   * first search of an owner reads them from the store; later ones use memory, re-read
   * in the background once half of `refreshMs` old (or when vectors are missing and the
   * model has become ready), and waited for once `refreshMs` old: an owner who searches
   * rarely never gets evidence older than that.
   */
  async evidenceFor(owner: string): Promise<UsageEvidence | undefined> {
    let cache = this.owners.get(owner);
    if (!cache || this.ageMs(cache) >= this.refreshMs) {
      try {
        cache = await this.load(owner);
      } catch (err) {
        // Discovery answers without the evidence (or with what it had) rather than fail.
        this.logger.warn({ err }, "could not read learned queries");
        if (!cache) return undefined;
      }
    } else if (this.isStale(cache)) {
      void this.load(owner).catch((err: unknown) =>
        this.logger.warn({ err }, "could not read learned queries"),
      );
    }
    this.owners.delete(owner);
    this.owners.set(owner, cache);
    return cache.evidence.size > 0 ? cache.evidence : undefined;
  }

  /** Waits for the notes, learning and reading under way (tests, shutdown). */
  async idle(): Promise<void> {
    await this.noteWrites.settled();
    while (this.recording.size > 0 || this.loading.size > 0) {
      await Promise.all([
        ...this.recording,
        ...[...this.loading.values()].map((load) => load.catch(() => {})),
      ]);
    }
  }

  /** Waits for what is under way; the learner is not used afterwards. */
  async close(): Promise<void> {
    await this.idle();
  }

  /** Deletes notes too old to link anything (called by the core's hourly pruning). */
  async prune(): Promise<void> {
    await this.store.deleteNotesBefore(this.clock.now() - this.windowMs);
  }

  private async learn(caller: Caller, skillId: string): Promise<void> {
    const now = this.clock.now();
    const note = await this.latestNote(caller.id);
    if (!note || note.owner !== caller.owner || now - note.at > this.windowMs) return;
    // A note written before queries with secrets were kept out may still hold one.
    if (!isLearnable(note.query)) return;
    if (!(await this.shouldCount(caller.id, note, skillId))) return;
    const event = { owner: caller.owner, query: note.query, skillId, discoveredAt: note.at, at: now };
    if (!(await this.store.record(event, this.caps))) return;
    const cache = this.owners.get(caller.owner);
    if (!cache) return; // read from the store at the owner's next search
    const previous = cache.evidence.countOf(skillId, note.query);
    // The query's vector only if at hand (the discover embedded it): a sync execution waits
    // for its learning, and waited for the model when the discover was answered without it
    // (a second and more while the model was busy). Without it, the evidence is incomplete
    // and the owner's next search re-reads it in the background (`isStale`), embedding it then.
    const vector = this.semantic?.recentVector(note.query, caller.owner);
    cache.evidence.add({ skillId, query: note.query, count: previous + 1, lastAt: now }, vector);
    this.evictOwners();
  }

  /**
   * The key's latest discover, from a read of the store that started after this call: a
   * read already under way may predate a discover whose answer the caller has seen (the
   * note of a discover answered just before, by any process). A busy key still reads at
   * most once at a time: executions arriving during a read share the next one.
   */
  private latestNote(keyId: string): Promise<DiscoverNote | undefined> {
    let reads = this.noteReads.get(keyId);
    if (!reads) {
      reads = new CoalescedRuns(
        () => this.store.lastDiscover(keyId),
        () => this.noteReads.delete(keyId),
      );
      this.noteReads.set(keyId, reads);
    }
    return reads.run();
  }

  /**
   * True the first time this process sees the key execute `skillId` after the discover
   * `note` when the discover offered the skill or the execution is the key's first after
   * it (in any process: the first one this process sees claims it in the store, and only
   * it); false otherwise, and for every later execution of the skill after that discover.
   * (A failed write is not retried: learning is best effort.)
   */
  private async shouldCount(keyId: string, note: DiscoverNote, skillId: string): Promise<boolean> {
    let entry = this.counted.get(keyId);
    if (!entry || entry.discoveredAt !== note.at) {
      entry = { discoveredAt: note.at, skills: new Set(), claimTried: false };
      setAsNewest(this.counted, keyId, entry);
    }
    if (entry.skills.has(skillId)) return false;
    entry.skills.add(skillId);
    // Decided before any await: of executions arriving together, one alone tries the claim.
    const tryClaim = !entry.claimTried;
    entry.claimTried = true;
    // Even an offered skill claims the first execution: a later one, not offered, is not first.
    const first = tryClaim && (await this.store.claimFirstExecution(keyId, note.at));
    return first || note.offered.includes(skillId);
  }

  private ageMs(cache: OwnerCache): number {
    return this.clock.now() - cache.loadedAt;
  }

  private isStale(cache: OwnerCache): boolean {
    if (this.ageMs(cache) >= this.refreshMs / 2) return true;
    return this.semantic?.state === "ready" && !cache.evidence.complete;
  }

  /** Reads the owner's learned queries (one read at a time per owner) and embeds them. */
  private load(owner: string): Promise<OwnerCache> {
    let loading = this.loading.get(owner);
    if (!loading) {
      loading = this.read(owner).finally(() => this.loading.delete(owner));
      this.loading.set(owner, loading);
    }
    return loading;
  }

  private async read(owner: string): Promise<OwnerCache> {
    const loadedAt = this.clock.now();
    // Queries learned before queries with secrets were kept out may hold one: never shown.
    const learned = (await this.store.list(owner, this.caps.perOwner)).filter((entry) =>
      isLearnable(entry.query),
    );
    const dimensions = this.semantic?.state === "ready" ? this.semantic.vectors.dimensions : undefined;
    // A refresh updates the evidence in memory, re-indexing only the skills whose queries
    // changed; a new one is built the first time, and once the model is ready.
    const held = this.owners.get(owner)?.evidence;
    const evidence =
      held && held.dimensions === dimensions ? held : new UsageEvidence(dimensions, this.caps.perSkill);
    evidence.replaceAll(learned, await this.vectorsOf(owner, learned, evidence));
    const cache = { evidence, loadedAt };
    this.owners.delete(owner);
    this.owners.set(owner, cache);
    this.evictOwners();
    return cache;
  }

  /**
   * Vectors of `owner`'s learned queries that `evidence` does not hold with theirs (a
   * refresh every 30 s re-read thousands from the cache, on the event loop, for queries
   * already held), at their index: from the owner's recent discovers (which embedded most of
   * them already), the embedding cache, the model.
   */
  private async vectorsOf(
    owner: string,
    learned: readonly LearnedQuery[],
    evidence: UsageEvidence,
  ): Promise<(Float32Array | undefined)[] | undefined> {
    if (learned.length === 0 || this.semantic?.state !== "ready") return undefined;
    const needed = learned.map((entry) => !evidence.hasVector(entry.skillId, entry.query));
    const missing = [...new Set(learned.filter((_, index) => needed[index]).map((entry) => entry.query))];
    const found = missing.length > 0 ? await this.semantic.embedTexts(missing, owner) : [];
    const vectors = new Map(missing.map((query, index) => [query, found[index]]));
    return learned.map((entry, index) => (needed[index] ? vectors.get(entry.query) : undefined));
  }

  private evictOwners(): void {
    let total = 0;
    for (const cache of this.owners.values()) total += cache.evidence.size;
    for (const [owner, cache] of this.owners) {
      if (total <= this.maxCachedQueries || this.owners.size === 1) break;
      this.owners.delete(owner);
      total -= cache.evidence.size;
    }
  }

  /** Writes the notes waiting, in one call of the store; a failure is logged, not thrown. */
  private async writeNotes(): Promise<void> {
    const notes = [...this.unwritten.values()];
    this.unwritten.clear();
    try {
      await this.store.noteDiscovers(notes);
    } catch (err) {
      this.logger.warn({ err }, "could not store discover notes");
    }
  }
}

/**
 * Sets `key` as the map's most recent entry (maps keep insertion order), dropping the
 * oldest past `MAX_COUNTED_KEYS`: the map stays bounded however many keys call.
 */
function setAsNewest<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > MAX_COUNTED_KEYS) {
    const oldest = map.keys().next().value;
    if (oldest !== undefined) map.delete(oldest);
  }
}
