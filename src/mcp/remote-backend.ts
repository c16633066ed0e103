import type { z } from "zod";
import { type Skillport as SkillportClient, SkillportError } from "../client/index.js";
import { DiscoverResponseSchema, type SkillDetail } from "../core/answer-schemas.js";
import { anySignal } from "../core/any-signal.js";
import type { DiscoverRequest } from "../core/api-schemas.js";
import {
  ERROR_CODES,
  type ErrorCode,
  EXECUTION_ERROR_CODES,
  ServiceError,
  toServiceError,
} from "../core/errors.js";
import {
  type ExecutionRecord,
  ExecutionRecordSchema,
  isTerminal,
  recordAsOf,
} from "../core/execution/record.js";
import type { Scope } from "../core/keys/api-key.js";
import type { Logger } from "../core/logger.js";
import { safeParseInWords } from "../core/validation.js";
import {
  type CatalogUse,
  type DiscoverAnswer,
  type ExecuteCall,
  type GetExecutionCall,
  type SkillportBackend,
  waitsForEnd,
} from "./backend.js";
import { knownPart } from "./known-part.js";
import { isOutage, Refreshed } from "./refreshed.js";

/**
 * How long the fetched catalog and the key's scope are used before they are asked again:
 * a key revoked or given another scope shows in `tools/list` within this time, as it does
 * at once in embedded mode (calls are refused at once in both).
 */
const CATALOG_TTL_MS = 60_000;
const PAGE_SIZE = 100;
/** The catalog listed before any could be fetched: the generic tools reach every skill meanwhile. */
const NO_SKILLS: readonly SkillDetail[] = Object.freeze([]);

/** Where the bridge's server is, for its messages, and where it logs. */
export interface RemoteOptions {
  /** The server's base URL, as `--remote` gave it (without credentials: `skillport mcp` refuses those). */
  baseUrl: string;
  logger: Logger;
  /**
   * How long a fetch at start-up goes unanswered before the log says the bridge is still
   * waiting for the server (default 5 s).
   */
  startNoticeMs?: number;
}

/**
 * A start waits for the server however long the client allows (a minute): a slow server
 * is no failed start. A healthy one answers in milliseconds, so past this the assistant's
 * log says what the bridge waits for, rather than nothing until the minute is up.
 */
const START_NOTICE_MS = 5_000;

/**
 * The tools answered by a running skillport over REST, through the official client
 * (`skillport mcp --remote URL`). A run is started and followed in one request (the
 * execute's event stream), so that it counts once, progress reaches the assistant and a
 * cancelled call cancels the execution, exactly as in embedded mode.
 */
export class RemoteBackend implements SkillportBackend {
  private readonly catalogChanged = new Set<() => void>();
  private readonly catalog: Refreshed<readonly SkillDetail[]>;
  private readonly callerScope: Refreshed<Scope>;

  /** Whether the server was found unavailable and has not answered since (each logged once). */
  private unavailable = false;

  private constructor(
    private readonly client: SkillportClient,
    private readonly options: RemoteOptions,
  ) {
    // A key over its rate limit lists tools as in embedded mode (see Refreshed). Before its
    // scope could be fetched, the key is listed as read-only: only discover_skills, which
    // every key may call. One of the two keys is listed wrong meanwhile, and for as long as
    // a client that lists tools once runs; this is the lesser wrong. A read-only key listed
    // as full-access would be offered execute_skill and get_execution, every call of them
    // refused, against the contract ("a read-only key lists and calls only
    // discover_skills"). A full-access key listed as read-only misses tools that could
    // answer only the rate-limit refusal until the limit passes, and after it can still
    // call execute_skill and get_execution (they resolve unlisted, and the server's
    // instructions name them); a client that follows notifications/tools/list_changed is
    // told when the real list arrives, and one that does not, after a restart, lists it.
    const arrived = () => {
      for (const listener of this.catalogChanged) listener();
    };
    const shared = {
      ttlMs: CATALOG_TTL_MS,
      onArrival: arrived,
      onOutage: (err: ServiceError) => this.outageBegan(err),
      onRecovery: () => this.outageEnded(),
      noAnswer: (waitedMs: number) =>
        this.namedOutage(
          new ServiceError("service_unavailable", {
            message: `It has not answered within ${waitedMs / 1000} s.`,
          }),
        ),
    };
    this.catalog = new Refreshed(() => this.reached(() => this.fetchSkills()), {
      ...shared,
      whileLimited: NO_SKILLS,
    });
    this.callerScope = new Refreshed(() => this.reached(() => this.fetchScope()), {
      ...shared,
      whileLimited: "read-only",
    });
  }

  /**
   * Connects with the key of `client`, checking that it works: throws the server's refusal
   * (e.g. `invalid_api_key`). A key over its rate limit works, and starts: its scope is
   * learned on a later call, as the limit allows.
   */
  static async connect(client: SkillportClient, options: RemoteOptions): Promise<RemoteBackend> {
    const backend = new RemoteBackend(client, options);
    await backend.atStart(backend.callerScope.getAtStart());
    return backend;
  }

  /**
   * The catalog, fetched at start-up (waiting for the server however long it takes, where
   * `tools/list` waits at most seconds); none for a key over its rate limit.
   */
  catalogAtStart(): Promise<readonly SkillDetail[]> {
    return this.atStart(this.catalog.getAtStart());
  }

  /** `fetch`'s answer, logging once if the server takes longer than a healthy one would. */
  private async atStart<T>(fetch: Promise<T>): Promise<T> {
    const { baseUrl, logger, startNoticeMs = START_NOTICE_MS } = this.options;
    const notice = setTimeout(() => {
      logger.warn(
        { base_url: baseUrl, waited_ms: startNoticeMs },
        "mcp --remote: the server has not answered yet; waiting for it before serving tools",
      );
    }, startNoticeMs);
    try {
      return await fetch;
    } finally {
      clearTimeout(notice);
    }
  }

  scope(): Promise<Scope> {
    return this.callerScope.get();
  }

  /** The key's scope as last fetched; undefined before it could be (a key over its rate limit). */
  knownScope(): Scope | undefined {
    return this.callerScope.lastFetched;
  }

  skills(use: CatalogUse): Promise<readonly SkillDetail[]> {
    return use === "list" ? this.catalog.get() : this.catalog.fetched();
  }

  onSkillsChanged(listener: () => void): () => void {
    this.catalogChanged.add(listener);
    return () => this.catalogChanged.delete(listener);
  }

  /**
   * A fetch for the tools, whose outage names the server: thrown before anything was
   * fetched (a `tools/list` error, which the assistant shows; the server's own message,
   * "Internal error.", says nothing of where), logged once after (see Refreshed). The
   * outage it wraps is its `cause`.
   */
  private async reached<T>(fetch: () => Promise<T>): Promise<T> {
    try {
      return await fetch();
    } catch (err) {
      if (!isOutage(err)) throw err;
      throw this.namedOutage(err);
    }
  }

  /** `outage`, naming the server it is of. */
  private namedOutage(outage: ServiceError): ServiceError {
    return new ServiceError("service_unavailable", {
      message: `The skillport at ${this.options.baseUrl} is unavailable: ${outage.message}`,
      retryAfterSeconds: outage.retryAfterSeconds,
      cause: outage,
    });
  }

  private outageBegan(err: ServiceError): void {
    if (this.unavailable) return;
    this.unavailable = true;
    this.options.logger.warn(
      { reason: err.message },
      "mcp --remote: the server is unavailable; the tools fetched last are listed until it answers again",
    );
  }

  private outageEnded(): void {
    if (!this.unavailable) return;
    this.unavailable = false;
    this.options.logger.info({ base_url: this.options.baseUrl }, "mcp --remote: the server answers again");
  }

  /** The key's scope, found by asking for the one thing only full-access keys may read. */
  private fetchScope(): Promise<Scope> {
    return remote(async () => {
      try {
        await this.client.listExecutions({ limit: 1 }).next();
        return "full-access";
      } catch (err) {
        if (err instanceof SkillportError && err.code === "insufficient_scope") return "read-only";
        throw err;
      }
    });
  }

  private fetchSkills(): Promise<SkillDetail[]> {
    return remote(async () => {
      const all: SkillDetail[] = [];
      for await (const page of this.client.listSkills({ limit: PAGE_SIZE })) all.push(...page.data);
      return all;
    });
  }

  async discover(request: DiscoverRequest): Promise<DiscoverAnswer> {
    const answer = readAs(
      DiscoverResponseSchema,
      "a discover",
      await remote(() => this.client.discover(request)),
    );
    // What was read of the server's answer, as its text: a later server's members this
    // version does not know are left out of both. No catalog here keeps summaries' JSON.
    return { answer, json: JSON.stringify(answer) };
  }

  /**
   * One REST request, counted once as in embedded mode: `POST /v1/execute` streaming the
   * execution's events (its record first, then progress, then the terminal record). With
   * `reportsToEnd`, the stream is followed past the answer, for the run's progress.
   */
  async execute(call: ExecuteCall): Promise<ExecutionRecord> {
    const { request, waitMs = 0, idempotencyKey, signal, onProgress, onLog, reportsToEnd } = call;
    signal.throwIfAborted();
    return new Promise((resolve, reject) => {
      // The stream is not closed by the call's cancellation before its first event names
      // the execution: closing it then would leave the run going unseen. From that event
      // on, the cancellation (or the end of `waitMs`) answers, and `settle` cancels.
      const stop = new AbortController();
      let waited: ReturnType<typeof anySignal> | undefined;
      let latest: ReceivedRecord | undefined;
      let answered = false;
      const answer = (record: Promise<ExecutionRecord> | ExecutionRecord) => {
        if (!answered) resolve(record);
        answered = true;
      };
      // Short of the end: the record as it stands, and the stream closed unless wanted.
      const answerLatest = () => {
        if (answered || latest === undefined) return;
        answer(this.settle(latest.asNow(), signal));
        if (!reportsToEnd) stop.abort();
      };
      const follow = async () => {
        try {
          const events = this.client.executeStream(request, {
            signal: stop.signal,
            ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
          });
          for await (const event of events) {
            if (event.type === "progress") {
              const { execution_id: _, type: __, ...update } = event;
              onProgress?.(update);
              continue;
            }
            if (event.type === "log") {
              onLog?.({ level: event.level, message: event.message, fields: event.fields });
              continue;
            }
            let record: ExecutionRecord;
            try {
              record = knownRecord(event.record);
            } catch (err) {
              // A record it cannot read may be the run's end: an older one is no answer then.
              if (!answered) reject(err);
              answered = true;
              return;
            }
            latest = new ReceivedRecord(record);
            if (isTerminal(record.status)) return answer(record);
            if (waited === undefined) {
              // Waiting for the end: however long the run takes, as embedded mode waits.
              waited = anySignal(
                waitsForEnd(call) ? [signal] : [signal, AbortSignal.timeout(Math.max(waitMs, 1))],
              );
              if (waited.signal.aborted) answerLatest();
              else waited.signal.addEventListener("abort", answerLatest, { once: true });
            }
          }
        } catch (err) {
          // Refused before it started: the refusal is the answer, as for any call.
          if (latest === undefined) reject(fromClientError(err));
          // Closed (by the caller or the wait's end), or following failed: see `settle`.
        } finally {
          waited?.dispose();
          if (latest === undefined) reject(new ServiceError("internal_error"));
          else answerLatest();
        }
      };
      void follow();
    });
  }

  /**
   * One REST request, as in embedded mode: the execution's event stream, which begins with
   * its record as it stands, followed until it is terminal or `waitMs` passes; its
   * progress events go to `onProgress` meanwhile.
   */
  async getExecution({ id, waitMs, signal, onProgress }: GetExecutionCall): Promise<ExecutionRecord> {
    if (waitMs <= 0) return this.readExecution(id, signal);
    const waited = anySignal([signal, AbortSignal.timeout(waitMs)]);
    let latest: ReceivedRecord | undefined;
    try {
      for await (const event of this.client.executionEvents(id, { signal: waited.signal })) {
        if (event.type === "progress") {
          const { execution_id: _, type: __, ...update } = event;
          onProgress?.(update);
          continue;
        }
        if (event.type !== "status") continue;
        const record = knownRecord(event.record);
        if (isTerminal(record.status)) return record;
        latest = new ReceivedRecord(record);
      }
    } catch (err) {
      // Refused (unknown id, scope, limit): the refusal. Cut short after the first event
      // (the wait's end, or following failed): the record as it stood.
      if (latest === undefined && !waited.signal.aborted) throw fromClientError(err);
    } finally {
      waited.dispose();
    }
    return latest?.asNow() ?? this.readExecution(id, signal);
  }

  async readExecution(id: string, signal?: AbortSignal): Promise<ExecutionRecord> {
    return knownRecord(await remote(() => this.client.getExecution(id, signal ? { signal } : {})));
  }

  async cancelExecution(id: string): Promise<ExecutionRecord> {
    return knownRecord(await remote(() => this.client.cancelExecution(id)));
  }

  /**
   * One REST request that only counts (the catalog's first skill, which every key may
   * read): the call refused here counts once, as in embedded mode, and a key over its
   * limit or revoked hears that instead of the local refusal, as it would embedded.
   */
  async countRefusedCall(): Promise<void> {
    await remote(() => this.client.listSkills({ limit: 1 }).next());
  }

  /** The calls throw `ServiceError`s already (`remote`); no store of this process to consult. */
  errorOf(err: unknown): ServiceError {
    return toServiceError(err);
  }

  /**
   * The answer once following a run stopped short of its end: a cancelled call cancels
   * the execution, as a cancelled embedded call does; otherwise the latest record, still
   * running, for the caller to poll (the execution was started, and reporting a failure
   * to follow it instead would have an agent that retries run it twice).
   */
  private settle(latest: ExecutionRecord, signal: AbortSignal): Promise<ExecutionRecord> {
    if (!signal.aborted) return Promise.resolve(latest);
    return this.cancelExecution(latest.id).catch(() => latest);
  }
}

/**
 * A record as the server sent it, and when it arrived. A stream sends a running record once,
 * as it stood then: answered at the end of `wait_ms`, its `latency_ms` was that of the
 * stream's start (2 ms after a 500 ms wait), where embedded mode answers the time run so far.
 * `asNow` ages it by the time since it arrived, on this process's
 * clock only (the server's may differ), through the core's one rule (`recordAsOf`), at no
 * extra request: a call still counts once.
 */
class ReceivedRecord {
  private readonly arrivedAtMs = performance.now();

  constructor(private readonly record: ExecutionRecord) {}

  asNow(): ExecutionRecord {
    const { record } = this;
    if (record.started_at === null || record.latency_ms === null) return record;
    // The server's clock as it reads now: its run time when sent, plus the time since.
    const sinceMs = Math.round(performance.now() - this.arrivedAtMs);
    const serverNowMs = Date.parse(record.started_at) + record.latency_ms + sinceMs;
    return recordAsOf(record, serverNowMs);
  }
}

/**
 * What the server sent, as this version's MCP tools declare it (their outputSchema, which
 * MCP says `structuredContent` must fit): members a server of a later version adds are left
 * out (`knownPart`), since clients that validate a result would refuse it for them (`npx
 * skillport mcp --remote` need not be the server's version). An answer that does not fit
 * otherwise is the server's fault, as for any answer the client cannot read.
 */
function readAs<T>(schema: z.ZodType<T>, what: string, answer: unknown): T {
  const known = knownPart(schema, answer);
  const read = safeParseInWords(schema, known);
  if (read.success) return read.data;
  const issue = read.error.issues[0];
  throw new ServiceError("service_unavailable", {
    message: `The server answered ${what} that this version of skillport cannot read (${issue?.path.join(".")}: ${issue?.message}).`,
    cause: read.error,
  });
}

const KNOWN_ERROR_CODES: ReadonlySet<string> = new Set(EXECUTION_ERROR_CODES);

/**
 * A record as `readAs` reads it, except that a run a later server ended with an error code
 * this version does not know reads as `execution_failed`, the code kept in its message: it
 * ended, and refusing the record for its code would hide that (clients validate even an
 * error result's structured content against the outputSchema, which lists the codes).
 */
function knownRecord(record: unknown): ExecutionRecord {
  const error = (record as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  const code = error?.code;
  if (typeof code !== "string" || KNOWN_ERROR_CODES.has(code)) {
    return readAs(ExecutionRecordSchema, "an execution record", record);
  }
  const failed = { code: "execution_failed", message: `${code}: ${String(error?.message)}` };
  return readAs(ExecutionRecordSchema, "an execution record", { ...(record as object), error: failed });
}

/** Runs a client call, turning its failures into the core's errors so the tools answer alike. */
async function remote<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw fromClientError(err);
  }
}

function fromClientError(err: unknown): unknown {
  if (!(err instanceof SkillportError)) return err;
  if (err.code in ERROR_CODES) {
    return new ServiceError(err.code as ErrorCode, {
      message: err.message,
      details: err.details,
      retryAfterSeconds: err.retryAfterSeconds,
      executionId: err.executionId,
      cause: err,
    });
  }
  // The server could not be reached or answered nonsense: the caller may retry later.
  return new ServiceError("service_unavailable", { message: err.message, cause: err });
}
