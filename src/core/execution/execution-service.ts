import { createHash } from "node:crypto";
import { requireScope } from "../access.js";
import { checkIdempotencyKey, type ExecuteRequest } from "../api-schemas.js";
import { canonicalJson } from "../canonical-json.js";
import type { Clock } from "../clock.js";
import { isoTimestamp } from "../clock.js";
import { ServiceError } from "../errors.js";
import type { ApiKey } from "../keys/api-key.js";
import type { ConcurrencyGate } from "../limits/concurrency-gate.js";
import type { RateLimitStatus } from "../limits/rate-limit.js";
import type { Logger } from "../logger.js";
import type { Store } from "../ports.js";
import type { SkillRegistry } from "../skills/registry.js";
import { assertJsonDepth, parseOrThrow } from "../validation.js";
import type { ExecutionEvents } from "./events.js";
import type { ExecutionRunner, RunHooks } from "./execution-runner.js";
import { newRecord } from "./new-record.js";
import { type ExecutionRecord, isTerminal, type StoredExecution } from "./record.js";
import { withParamsKept } from "./redacted-execution.js";
import { ReservedRecords } from "./reserved-records.js";

/** contract.md: a repeat within 24 hours returns the first record. */
const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * A reservation whose execution is still not stored this long after it was made was
 * abandoned: its process died (SIGKILL, power loss) between committing the reservation and
 * the record, which a running process does within a group commit, milliseconds. The skill
 * never started (a keyed execution's record is committed before it starts), so a repeat
 * then runs, instead of being told for 24 hours that the first call is in progress. The
 * margin also covers clocks of PostgreSQL replicas that disagree by less than it.
 */
const ABANDONED_RESERVATION_MS = 60_000;
/**
 * How long a repeat waits for the first call's execution to end before it is told
 * `idempotency_in_progress`: a quick run (an async `math.evaluate`) ends within it, and
 * its repeat, sent as soon as the 202 arrived, is answered its record rather than a 409
 * that only says "a moment ago".
 */
const REPEAT_SETTLE_MS = 250;

export interface ExecuteOptions extends RunHooks {
  idempotencyKey?: string;
  /**
   * Told the record of a new sync execution once it is stored, before the skill starts
   * (a streamed execute: its first event names the execution, which can then be
   * cancelled by id). With it, the record is stored first, as with an idempotency key.
   */
  onStored?: (record: ExecutionRecord) => void;
  /**
   * Told a new execution's id once it passed the caps, before it is stored or run (not for
   * a repeat answered from an earlier record, nor a call refused): the request's log line
   * names it even when the client leaves before the answer.
   */
  onCreated?: (executionId: string) => void;
  /**
   * A repeat whose first call's execution still runs is answered with its record as it
   * stands, not `idempotency_in_progress`: the caller follows it to its end (a streamed
   * execute, an MCP call waiting for it).
   */
  replayRunning?: boolean;
}

/** What `execute` answers: the record, and whether it was started sync or async (200 vs 202). */
export interface ExecuteResult {
  record: ExecutionRecord;
  mode: "sync" | "async";
  /** True when an Idempotency-Key matched an earlier call and nothing new ran. */
  replayed: boolean;
}

export interface ExecutionServiceDeps {
  registry: SkillRegistry;
  store: Store;
  clock: Clock;
  logger: Logger;
  events: ExecutionEvents;
  runner: ExecutionRunner;
  concurrency: ConcurrencyGate;
  /** Takes back the rate-limit count of a request refused with 429 here (`AccessGate.uncharge`). */
  uncharge: (key: ApiKey) => Promise<RateLimitStatus>;
  /** A record as readers see it now (`ExecutionQueries.asShown`): a replay answers through it. */
  asShown: (record: ExecutionRecord) => ExecutionRecord;
  /** The record once the execution ends, or as it stands after `waitMs` (`ExecutionQueries.waitForEnd`). */
  waitForEnd: (execution: StoredExecution, waitMs: number) => Promise<ExecutionRecord>;
  /** Told of each new execution (learning from use links it to the key's latest discover). */
  onExecutionStarted?: (key: ApiKey, skillId: string) => Promise<void>;
}

/**
 * Starting executions. Every execution, whatever surface asks for it, goes through
 * `execute`: scope, skill lookup, params validation, idempotency, the record, the run.
 * (Admission — authentication and limits — happens before, in `AccessGate`.)
 */
export class ExecutionService {
  private readonly reservedRecords = new ReservedRecords();

  constructor(private readonly deps: ExecutionServiceDeps) {}

  async execute(key: ApiKey, input: ExecuteRequest, options: ExecuteOptions = {}): Promise<ExecuteResult> {
    requireScope(key, "full-access");
    const { registry, clock, runner } = this.deps;
    const entry = registry.require(input.skill_id);
    // Before anything recursive (the schema, hashing, storing) walks the params.
    assertJsonDepth(input.params, "params");
    const params = parseOrThrow(entry.params, input.params, "invalid_params") as Record<string, unknown>;
    const mode = input.async ? "async" : "sync";
    const record = newRecord(entry.skill.id, clock.now(), mode === "async" ? "queued" : "running");
    runner.assertAccepting();
    // Until the record is stored or the reservation given up, a repeat in this process waits.
    const settle = options.idempotencyKey === undefined ? undefined : this.reservedRecords.hold(record.id);
    try {
      return await this.reserveAndStart(key, input, options, { record, params, mode }, settle);
    } finally {
      settle?.();
    }
  }

  /** `execute` past its checks: the Idempotency-Key, the concurrency slot, the record, the run. */
  private async reserveAndStart(
    key: ApiKey,
    input: ExecuteRequest,
    options: ExecuteOptions,
    {
      record,
      params,
      mode,
    }: { record: ExecutionRecord; params: Record<string, unknown>; mode: "sync" | "async" },
    settleReservation: (() => void) | undefined,
  ): Promise<ExecuteResult> {
    const { registry, runner } = this.deps;
    const { id } = record;
    // A repeat is answered before the concurrency cap: it runs nothing, so it takes no slot.
    if (options.idempotencyKey !== undefined) {
      const replay = await this.reserveIdempotencyKey(
        key,
        options.idempotencyKey,
        input,
        id,
        mode,
        options.replayRunning === true,
      );
      if (replay) return replay;
    }
    const release = await this.takeSlot(key, id, options.idempotencyKey);
    // Past the caps: a refused call makes no execution, and its request's log line names none.
    options.onCreated?.(id);
    let handedToQueue = false;
    try {
      // Learned in parallel with the run; a sync answer waits for it (so that the caller's
      // next discover already has the evidence), an async one does not. It never rejects.
      const learned = this.deps.onExecutionStarted?.(key, record.skill_id);
      const execution: StoredExecution = {
        record,
        owner: key.owner,
        keyId: key.id,
        params,
        async: mode === "async",
        timeoutMs: input.timeout_ms,
        runnerId: runner.runnerId,
      };
      if (mode === "async") {
        // The 202 promises a record that exists: commit it before answering. From then on
        // the execution is accepted, even if shutdown begins meanwhile (see `enqueue`).
        await this.storeFirstRecord(key, options.idempotencyKey, execution);
        settleReservation?.();
        runner.enqueue(execution, options, release);
        handedToQueue = true;
        return { record: execution.record, mode, replayed: false };
      }
      // With an idempotency key, the record is committed before the skill starts: a
      // reservation without a record then means the skill never ran, which is what lets a
      // repeat take an abandoned reservation over (see ABANDONED_RESERVATION_MS). It is
      // stored running, so without its credentials; the run gets them whole from `execution`.
      const storedFirst =
        options.idempotencyKey !== undefined || options.onStored !== undefined
          ? withParamsKept(execution, registry)
          : undefined;
      try {
        runner.assertAccepting();
      } catch (err) {
        // Shutting down since the check above: nothing was stored, so a repeat may run.
        await this.withdrawReservation(key, options.idempotencyKey, id);
        throw err;
      }
      if (storedFirst) await this.storeFirstRecord(key, options.idempotencyKey, storedFirst);
      settleReservation?.();
      options.onStored?.(execution.record);
      const finished = await runner.runNow(execution, options, { stored: storedFirst });
      await learned;
      return { record: finished.record, mode, replayed: false };
    } finally {
      if (!handedToQueue) release();
    }
  }

  /**
   * Stores a new execution's first record (before its 202, or before a keyed or streamed
   * sync run starts). A save the store refused has most often rolled back: its reservation
   * is then withdrawn, so that a retry with the key runs (README: a first call refused with
   * 503 leaves the key free), and the refusal thrown. But one whose commit lost its answer
   * (a PostgreSQL connection cut during COMMIT) may be stored all the same, so the record
   * is looked for first: found, the save did succeed and the execution goes on (withdrawn,
   * a retry would run the skill a second time, and the stored record would wait unrun for
   * this process's end). When it cannot be looked for (the outage goes on), whether it was
   * stored is unknown: the reservation stays, and a repeat is told 409 with its id until
   * the reservation counts as abandoned (ABANDONED_RESERVATION_MS).
   */
  private async storeFirstRecord(
    key: ApiKey,
    idempotencyKey: string | undefined,
    execution: StoredExecution,
  ): Promise<void> {
    const { store } = this.deps;
    const { id } = execution.record;
    try {
      await store.executions.save(execution);
      return;
    } catch (err) {
      // A store that refuses writes until the restart may still read back a record it
      // wrote into a lost file (SQLite), which the restart will not find: not stored.
      const stored = store.refusesUntilRestart(err)
        ? false
        : await store.executions.get(id).then(
            (found) => found !== undefined,
            () => undefined,
          );
      if (stored) return;
      // A withdrawal refused too leaves the reservation to be taken over: the caller is
      // answered the refusal of its record, not that of the withdrawal.
      if (stored === false) await this.withdrawReservation(key, idempotencyKey, id).catch(() => {});
      throw err;
    }
  }

  private async withdrawReservation(key: ApiKey, idempotencyKey: string | undefined, executionId: string) {
    if (idempotencyKey !== undefined)
      await this.deps.store.idempotency.withdraw(key.id, idempotencyKey, executionId);
  }

  /**
   * A concurrency slot for the execution, held until it ends; or the refusal (429 or 503),
   * thrown before anything is stored. A refused execution leaves no trace: its
   * idempotency reservation is withdrawn, and a 429 does not count against the key's rate
   * limit.
   */
  private async takeSlot(key: ApiKey, executionId: string, idempotencyKey: string | undefined) {
    try {
      return this.deps.concurrency.acquire(key.id);
    } catch (err) {
      const refusal = err instanceof ServiceError ? err : undefined;
      const [, limit] = await Promise.all([
        this.withdrawReservation(key, idempotencyKey, executionId),
        refusal?.status === 429 ? this.deps.uncharge(key) : undefined,
      ]);
      throw refusal && limit ? refusal.withLimit(limit) : err;
    }
  }

  /**
   * Stores the idempotency entry, or answers from the first call that used the key:
   * its record (same mode), 409 while its execution still runs (unless `replayRunning`),
   * 422 for another body.
   */
  private async reserveIdempotencyKey(
    key: ApiKey,
    idempotencyKey: string,
    input: ExecuteRequest,
    executionId: string,
    mode: "sync" | "async",
    replayRunning: boolean,
  ): Promise<ExecuteResult | undefined> {
    checkIdempotencyKey(idempotencyKey);
    const now = this.deps.clock.now();
    const requestHash = createHash("sha256").update(canonicalJson(input)).digest("hex");
    const entry = {
      keyId: key.id,
      idempotencyKey,
      requestHash,
      executionId,
      mode,
      createdAt: isoTimestamp(now),
      expiresAt: isoTimestamp(now + IDEMPOTENCY_TTL_MS),
    };
    const { store } = this.deps;
    const outcome = await store.idempotency.reserve(entry);
    if (outcome.reserved) return undefined;
    const first = outcome.existing;
    if (first.requestHash !== requestHash) throw new ServiceError("idempotency_key_reused");
    const existing = await store.executions.get(first.executionId);
    if (!existing) {
      const reserved = this.reservedRecords.settled(first.executionId);
      if (reserved) {
        // The first call is in this process, its record a commit away (or its reservation
        // withdrawn): answered once it is there, as a repeat a moment later would be.
        await reserved;
        return this.reserveIdempotencyKey(key, idempotencyKey, input, executionId, mode, replayRunning);
      }
      // Not committed yet by another process (the first call is in progress), or never to
      // be: see ABANDONED_RESERVATION_MS.
      const abandoned = now - Date.parse(first.createdAt) >= ABANDONED_RESERVATION_MS;
      if (abandoned && (await store.idempotency.takeOver(entry, first.executionId))) return undefined;
      // Named all the same: it is the run's id, whose record the first call is storing. The
      // message does not promise the record: if that call fails before storing it, it never
      // appears, and the reservation is given up (then a retry runs the skill).
      throw new ServiceError("idempotency_in_progress", {
        message: `A request with this Idempotency-Key is still being processed: execution ${first.executionId} is being started elsewhere and may not be found for a moment; retry this request shortly rather than give up.`,
        executionId: first.executionId,
      });
    }
    let { record } = existing;
    if (!isTerminal(record.status) && !replayRunning) {
      // contract.md: "a repeat while the first is still running is 409", sync or async.
      record = await this.deps.waitForEnd(existing, REPEAT_SETTLE_MS);
      if (!isTerminal(record.status)) {
        // Its id, to follow the run (GET /v1/executions/{id}?wait=) rather than repeat
        // blindly. Idempotency keys are scoped to the API key: only the run's own key is told it.
        throw new ServiceError("idempotency_in_progress", {
          message: `A request with this Idempotency-Key is still being processed: execution ${record.id} is ${record.status}.`,
          executionId: record.id,
        });
      }
    }
    return { record: this.deps.asShown(record), mode: first.mode, replayed: true };
  }
}
