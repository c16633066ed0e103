import { randomUUID } from "node:crypto";
import type { Dispatcher } from "undici";
import type { DiscoverResponse, SkillDetail } from "../core/answer-schemas.js";
import type { DEFAULT_TIMEOUT_MS, MAX_WAIT_SECONDS } from "../core/api-schemas.js";
import type { ExecuteStreamEvent, ExecutionEvent } from "../core/execution/events.js";
import type { ExecutionRecord } from "../core/execution/record.js";
import { DISCOVER_ANSWER, EXECUTION_RECORD, PAGE, SKILL, TERMINAL } from "./answer-shapes.js";
import { CallsInFlight } from "./calls-in-flight.js";
import { type ClientConfig, resolveConfig } from "./config.js";
import { Deadline } from "./deadline.js";
import { clientError, SkillportError } from "./errors.js";
import { IDEMPOTENCY_KEY_PATTERN, IDEMPOTENCY_KEY_RULE } from "./idempotency-key.js";
import { backoffDelayMs, sleep } from "./retry.js";
import { executionEventsOf } from "./sse.js";
import { failureOf, type RequestSpec, Transport } from "./transport.js";
import type {
  CallOptions,
  DiscoverInput,
  ExecuteInput,
  ExecuteOptions,
  ExecuteStreamOptions,
  GetExecutionOptions,
  ListExecutionsInput,
  ListSkillsInput,
  Page,
  SkillportOptions,
  WaitForExecutionOptions,
} from "./types.js";

/*
 * Server constants the client must agree with, mirrored here because the client may
 * not import server code at runtime; their types are the server's, so the compiler
 * fails the build the day the two differ.
 */
/** contract.md: the timeout of an execution that does not set `timeout_ms`. */
const SERVER_DEFAULT_TIMEOUT_MS: typeof DEFAULT_TIMEOUT_MS = 30_000;
/** contract.md: the longest long poll, `?wait=60`. */
const SERVER_MAX_WAIT_SECONDS: typeof MAX_WAIT_SECONDS = 60;

const DEFAULT_WAIT_TIMEOUT_MS = 10 * 60_000;
/**
 * The least time between two long polls of `waitForExecution`. The server answers a long
 * poll with a running record only when its wait (a second at least) is over; something
 * else in between that answers at once (a cache, a proxy) must not get a flood of polls.
 */
const MIN_POLL_INTERVAL_MS = 1_000;
/**
 * The least time between the starts of two event streams of `executionEvents`: a server
 * (or something in front of it) that ends every stream at once must not get a flood of
 * them. EventSource waits a few seconds by default (HTML, "Server-sent events").
 */
const MIN_RECONNECT_INTERVAL_MS = 1_000;
/**
 * How long a stream must have stayed open for its end or cut to start the count of
 * failed streams afresh: a proxy that ends every stream after a minute (a common idle or
 * lifetime limit) must not make a long run's follower give up after `maxRetries` minutes;
 * only streams that fail soon after they open, one after another, are a server refusing
 * to stream. A stream that fell silent stayed open only until its last bytes.
 */
const LONG_STREAM_MS = 30_000;
/** How a stream that was cut, not ended, fails: its connection dropped, or went silent. */
const STREAM_CUT_CODES: ReadonlySet<string> = new Set(["connection_error", "timeout"]);

/**
 * The official skillport client: `new Skillport()` reads the key from
 * `SKILLPORT_API_KEY`; every method maps to one endpoint of `/v1`, retries what is safe
 * to retry, and throws `SkillportError` for anything the server refuses.
 */
export class Skillport {
  // Private to JavaScript, not only to TypeScript: the config holds the key, and a client
  // logged or caught by an error reporter (`util.inspect`, `JSON.stringify`) must not show it.
  readonly #config: ClientConfig;
  readonly #transport: Transport;
  /** Every public method runs in it, so that `close()` waits for the calls under way. */
  readonly #calls = new CallsInFlight();
  /** The client's close, once asked for (see `close`). */
  #closing: Promise<void> | undefined;

  constructor(options: SkillportOptions = {}) {
    this.#config = resolveConfig(options);
    this.#transport = new Transport(this.#config);
  }

  /** `POST /v1/discover`: skills ranked for a free-text query, each with its params JSON Schema. */
  discover(request: DiscoverInput, options: CallOptions = {}): Promise<DiscoverResponse> {
    return this.#calls.run(() =>
      this.#transport.json({
        method: "POST",
        path: "/v1/discover",
        json: request,
        shape: DISCOVER_ANSWER,
        signal: options.signal,
      }),
    );
  }

  /**
   * `POST /v1/execute`. Synchronous by default: resolves with the terminal record. With
   * `async: true`: resolves at once with the queued record (follow it with
   * `waitForExecution` or `executionEvents`). A failed execution is a record with
   * `success: false`, unless `throwOnFailure` is set.
   */
  execute(request: ExecuteInput, options: ExecuteOptions = {}): Promise<ExecutionRecord> {
    return this.#calls.run(() => this.postExecute(request, options));
  }

  private async postExecute(request: ExecuteInput, options: ExecuteOptions): Promise<ExecutionRecord> {
    const { idempotencyKey } = options;
    if (idempotencyKey !== undefined && !IDEMPOTENCY_KEY_PATTERN.test(idempotencyKey)) {
      throw new RangeError(`idempotencyKey must be ${IDEMPOTENCY_KEY_RULE}.`);
    }
    const record = await this.#transport.json<ExecutionRecord>({
      method: "POST",
      path: "/v1/execute",
      json: request,
      shape: EXECUTION_RECORD,
      // Generated once per call and reused by every retry, so a retry never runs the skill twice.
      headers: { "idempotency-key": idempotencyKey ?? randomUUID() },
      // The caller's own key may name a run of theirs still going (a call they aborted and
      // repeat to find its record): the call waits for it rather than throw its 409.
      keyChosenByCaller: idempotencyKey !== undefined,
      // An async call answers at once: with that run's record as it stands, not its end.
      answerWhileInProgress:
        request?.async === true ? (refusal) => this.recordOfRun(refusal, options.signal) : undefined,
      signal: options.signal,
      // A request that is none (JavaScript) is sent as it is, for the server's 400 to word.
      serverTimeMs: request?.async ? 0 : (request?.timeout_ms ?? SERVER_DEFAULT_TIMEOUT_MS),
    });
    return options.throwOnFailure ? succeededOrThrow(record) : record;
  }

  /**
   * The record of the run an `idempotency_in_progress` refusal names; undefined while it
   * cannot be read (its first record not stored yet), for the call to ask again.
   */
  private async recordOfRun(refusal: SkillportError, signal: AbortSignal | undefined) {
    if (refusal.executionId === undefined) return undefined;
    return this.fetchExecution(refusal.executionId, { signal }).catch(() => undefined);
  }

  /** `GET /v1/executions/{id}`; with `waitSeconds`, a long poll until the record is terminal. */
  getExecution(id: string, options: GetExecutionOptions = {}): Promise<ExecutionRecord> {
    return this.#calls.run(() => this.fetchExecution(id, options));
  }

  /** `getExecution` within a call already in flight. */
  private async fetchExecution(id: string, options: GetExecutionOptions): Promise<ExecutionRecord> {
    const waitSeconds = options.waitSeconds ?? 0;
    // A negative wait is no wait to the server's eye, but the caller meant something else; a
    // longer or fractional one the server refuses (400): a call mistake, told before sending
    // as the README promises, with the limit named.
    if (!(Number.isInteger(waitSeconds) && waitSeconds >= 0 && waitSeconds <= SERVER_MAX_WAIT_SECONDS)) {
      throw new RangeError(
        `waitSeconds must be a whole number of seconds from 0 to ${SERVER_MAX_WAIT_SECONDS} (the server's longest wait); for longer, use waitForExecution`,
      );
    }
    return this.#transport.json({
      method: "GET",
      path: `/v1/executions/${encodeURIComponent(nonEmpty(id, "id"))}${waitSeconds > 0 ? `?wait=${waitSeconds}` : ""}`,
      shape: EXECUTION_RECORD,
      signal: options.signal,
      serverTimeMs: waitSeconds * 1000,
    });
  }

  /**
   * The record once it is terminal: long polls, one after another, until then. Rejects
   * with code `timeout` if it is not terminal by the deadline (`timeoutMs`, default 10 minutes).
   */
  waitForExecution(id: string, options: WaitForExecutionOptions = {}): Promise<ExecutionRecord> {
    return this.#calls.run(() => this.pollUntilTerminal(id, options));
  }

  private async pollUntilTerminal(id: string, options: WaitForExecutionOptions): Promise<ExecutionRecord> {
    const timeoutMs = options.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS;
    // A string (JavaScript) passed `> 0` and was then added to the clock as text.
    if (typeof timeoutMs !== "number" || !(timeoutMs > 0)) {
      throw new RangeError("timeoutMs must be a number > 0 (Infinity: no deadline)");
    }
    nonEmpty(id, "id");
    const deadline = new Deadline(timeoutMs, options.signal);
    const { signal } = deadline;
    const deadlineMs = Date.now() + timeoutMs;
    try {
      for (;;) {
        const polledMs = Date.now();
        const secondsLeft = Math.ceil((deadlineMs - polledMs) / 1000);
        const waitSeconds = Math.max(1, Math.min(SERVER_MAX_WAIT_SECONDS, secondsLeft));
        const record = await this.fetchExecution(id, { waitSeconds, signal });
        if (TERMINAL[record.status]) return options.throwOnFailure ? succeededOrThrow(record) : record;
        const pauseMs = polledMs + MIN_POLL_INTERVAL_MS - Date.now();
        if (pauseMs > 0) await sleep(pauseMs, signal);
      }
    } catch (err) {
      if (deadline.expired) {
        throw clientError("timeout", `Execution ${id} did not finish within ${timeoutMs} ms.`);
      }
      throw err;
    } finally {
      deadline.dispose();
    }
  }

  /** `POST /v1/executions/{id}/cancel`: the cancelled record (409 `execution_not_cancellable` if it had ended). */
  cancelExecution(id: string, options: CallOptions = {}): Promise<ExecutionRecord> {
    return this.#calls.run(() =>
      this.#transport.json<ExecutionRecord>({
        method: "POST",
        path: `/v1/executions/${encodeURIComponent(nonEmpty(id, "id"))}/cancel`,
        shape: EXECUTION_RECORD,
        signal: options.signal,
        // A retry after an attempt that may have cancelled the execution meets it ended:
        // 409. If it ended cancelled, that cancel is this call's, and its record the answer
        // (a cancel by someone else at the same moment looks the same, and ends it alike).
        answerAfterLostAttempt: async (refusal) => {
          if (refusal.code !== "execution_not_cancellable") return undefined;
          const record = await this.fetchExecution(id, { signal: options.signal });
          return record.status === "cancelled" ? record : undefined;
        },
      }),
    );
  }

  /** `GET /v1/executions`, newest first: an async iterator over its pages, fetched as you go. */
  listExecutions(
    filter: ListExecutionsInput = {},
    options: CallOptions = {},
  ): AsyncGenerator<Page<ExecutionRecord>> {
    return this.pages("/v1/executions", filter, options);
  }

  /**
   * `GET /v1/executions/{id}/events`: the execution's `status` and `progress` events as
   * they happen, starting with its current status and ending after the terminal one.
   * Leaving the loop early closes the stream.
   */
  async *executionEvents(id: string, options: CallOptions = {}): AsyncGenerator<ExecutionEvent> {
    const path = `/v1/executions/${encodeURIComponent(nonEmpty(id, "id"))}/events`;
    for await (const event of this.#calls.iterate(() =>
      this.followEvents(`execution ${id}`, () => ({ method: "GET", path }), options),
    )) {
      // Log lines go only to a streamed execute's caller; none come here.
      if (event.type !== "log") yield event;
    }
  }

  /**
   * `POST /v1/execute` with `Accept: text/event-stream`: runs the execution as a
   * synchronous `execute` does, in one request (counted once), and yields its events as
   * `executionEvents` does: first its record (`status`, which gives the id to cancel it
   * with `cancelExecution`), then its progress and the skill's log lines (`log`), ending
   * after the terminal record.
   * Refusals (a bad param, the rate limit, …) are thrown before the first event. Leaving
   * the loop early, or aborting, closes the stream: the execution goes on (cancel it to
   * stop it). Retries reuse one Idempotency-Key, so the skill never runs twice.
   */
  async *executeStream(
    request: Omit<ExecuteInput, "async">,
    options: ExecuteStreamOptions = {},
  ): AsyncGenerator<ExecuteStreamEvent> {
    const { idempotencyKey } = options;
    if (idempotencyKey !== undefined && !IDEMPOTENCY_KEY_PATTERN.test(idempotencyKey)) {
      throw new RangeError(`idempotencyKey must be ${IDEMPOTENCY_KEY_RULE}.`);
    }
    // JavaScript callers, whom the types do not stop: the server would queue the run and
    // answer 202 with its record, no stream, thrown as unexpected_response with the run going.
    if ((request as ExecuteInput | undefined)?.async === true) {
      throw new TypeError(
        "executeStream runs the execution in its own request: leave out async (for a run in the background, use execute with async: true, then executionEvents)",
      );
    }
    const headers = { "idempotency-key": idempotencyKey ?? randomUUID() };
    // Once the execution is known, a stream that ended early is followed on its own
    // events; before, the same request again (its Idempotency-Key finds the first run,
    // which may have started: a refusal of the repeat is retried, as after a lost attempt).
    yield* this.#calls.iterate(() =>
      this.followEvents(
        `the execution of ${request?.skill_id}`,
        (last, again) =>
          last === undefined
            ? {
                method: "POST",
                path: "/v1/execute",
                json: request,
                headers,
                earlierAttemptMayHaveLanded: again,
              }
            : { method: "GET", path: `/v1/executions/${encodeURIComponent(last.id)}/events` },
        options,
      ),
    );
  }

  /**
   * An execution's events across as many streams as it takes: `request` gives the next
   * one to open, knowing the latest status seen and whether a stream was opened before.
   */
  private async *followEvents(
    what: string,
    request: (
      last: ExecutionRecord | undefined,
      again: boolean,
    ) => RequestSpec<Dispatcher.ResponseData["body"]>,
    options: CallOptions,
  ): AsyncGenerator<ExecuteStreamEvent> {
    const { maxRetries, origin, onRetry } = this.#config;
    let lastStatus: ExecutionRecord | undefined;
    let again = false;
    // Streams one after another that were cut, or gave no new event, with no new event
    // between them (see below).
    let failedInARow = 0;
    // A server that shuts down gracefully ends its streams on the status they stand at:
    // a queued execution stays queued for the next start, and a run held by another
    // process goes on there. Like EventSource, follow it on a new stream, which the
    // service (restarted, or another replica) begins with the current status again: not
    // given twice. A stream cut instead (a crash, a proxy or the network dropping the
    // connection, or a silence past the idle limit) is followed on a new one alike, as
    // EventSource does, and as the README promises of connection errors. So is a stream
    // that ended giving nothing new, but that is no shutdown's doing: a proxy or a server
    // that ends every stream at once. Those and the cuts count against `maxRetries`, with
    // the retries' backoff, until a new event arrives: so many in a row are thrown, so
    // that a server that cuts or ends every stream is not asked forever.
    for (;;) {
      const spec = request(lastStatus, again);
      again = true;
      const body = await this.#transport.stream({ ...spec, signal: options.signal });
      const connectedMs = Date.now();
      // When the stream last brought bytes (an event, or the keep-alive comment between them).
      let heardMs = connectedMs;
      async function* heard() {
        for await (const chunk of body as AsyncIterable<Uint8Array>) {
          heardMs = Date.now();
          yield chunk;
        }
      }
      let terminal = false;
      let gaveNew = false;
      let cut: SkillportError | undefined;
      try {
        let firstStatus = true;
        for await (const event of executionEventsOf(heard())) {
          if (event.type === "status") {
            const { record } = event;
            const repeated =
              firstStatus && record.id === lastStatus?.id && record.status === lastStatus.status;
            firstStatus = false;
            if (repeated) continue;
            lastStatus = record;
            if (TERMINAL[record.status]) terminal = true;
          }
          failedInARow = 0;
          gaveNew = true;
          yield event;
        }
      } catch (err) {
        if (options.signal?.aborted) throw options.signal.reason;
        if (err instanceof SyntaxError) {
          throw clientError("unexpected_response", `An event of ${what} is not JSON.`, err);
        }
        cut = failureOf(err, origin);
        // The terminal record arrived: what became of the connection after it is no matter.
        if (terminal) return;
        // A silence past the idle limit (`timeout`) is a connection that died unseen.
        if (!STREAM_CUT_CODES.has(cut.code)) throw cut;
      } finally {
        body.destroy();
      }
      // The server ends the stream after the terminal status (contract.md).
      if (terminal) return;
      let pauseMs = Math.max(0, connectedMs + MIN_RECONNECT_INTERVAL_MS - Date.now());
      if (cut !== undefined || !gaveNew) {
        // A stream lived until it ended or was cut; one that fell silent (`timeout`), only
        // until the silence began: the idle limit it waited out (45 s, past LONG_STREAM_MS)
        // is the failure itself, and counting it made a server that goes silent after its
        // first event be asked again forever, never throwing `timeout`.
        const livedUntilMs = cut?.code === "timeout" ? heardMs : Date.now();
        if (livedUntilMs - connectedMs >= LONG_STREAM_MS) failedInARow = 0;
        const error = cut ?? endedEarly(what, failedInARow + 1);
        if (failedInARow >= maxRetries) throw error;
        failedInARow++;
        pauseMs = Math.max(pauseMs, backoffDelayMs(failedInARow));
        onRetry?.({ retry: failedInARow, delayMs: pauseMs, error, method: spec.method, path: spec.path });
      }
      if (pauseMs > 0) await sleep(pauseMs, options.signal);
    }
  }

  /** `GET /v1/skills`: the catalog, an async iterator over its pages. */
  listSkills(paging: ListSkillsInput = {}, options: CallOptions = {}): AsyncGenerator<Page<SkillDetail>> {
    return this.pages("/v1/skills", paging, options);
  }

  /** `GET /v1/skills/{skill_id}`: one skill with its params and result schemas, annotations and examples. */
  getSkill(skillId: string, options: CallOptions = {}): Promise<SkillDetail> {
    return this.#calls.run(async () => {
      const path = nonEmpty(skillId, "skillId").split("/").map(encodeURIComponent).join("/");
      return this.#transport.json({
        method: "GET",
        path: `/v1/skills/${path}`,
        shape: SKILL,
        signal: options.signal,
      });
    });
  }

  /**
   * Closes the client. A call that begins after it throws `client_closed`, nothing sent;
   * the calls in flight finish as they would have, their waits between attempts and the
   * attempts after them included (an event stream being followed: until its loop ends; a
   * listing: the page being fetched). It resolves once they have ended and the client's
   * connection pool is closed; a dispatcher passed in by the caller stays open (it is
   * theirs). Abort the calls to close at once. Closing again waits for the first close.
   */
  close(): Promise<void> {
    const { dispatcher, ownsDispatcher } = this.#config;
    this.#closing ??= this.#calls.close().then(() => (ownsDispatcher ? dispatcher.close() : undefined));
    return this.#closing;
  }

  private async *pages<T>(
    path: string,
    query: Record<string, string | number | undefined>,
    options: CallOptions,
  ): AsyncGenerator<Page<T>> {
    let cursor = query.cursor === undefined ? undefined : String(query.cursor);
    do {
      const search = new URLSearchParams();
      for (const [name, value] of Object.entries({ ...query, cursor })) {
        if (value !== undefined) search.set(name, String(value));
      }
      const spec: RequestSpec<Page<T>> & { shape: typeof PAGE } = {
        method: "GET",
        path: `${path}?${search}`,
        shape: PAGE,
        signal: options.signal,
      };
      // In flight page by page, not for the whole listing: between pages the next request
      // is the caller's to ask for, and a listing read for its first page only (one
      // `next()`) would have held close() forever.
      const page = await this.#calls.run(() => this.#transport.json<Page<T>>(spec));
      yield page;
      cursor = page.next_cursor ?? undefined;
    } while (cursor !== undefined);
  }
}

/** Why `followEvents` stops: `streams` streams in a row ended before the final status, giving nothing new. */
function endedEarly(what: string, streams: number): SkillportError {
  const times = streams === 1 ? "once" : `${streams} times in a row`;
  return clientError(
    "unexpected_response",
    `The event stream of ${what} ended ${times} before the final status, with no new event.`,
  );
}

/** The record if it succeeded; else a `SkillportError` with its error code and the record. */
function succeededOrThrow(record: ExecutionRecord): ExecutionRecord {
  if (!TERMINAL[record.status] || record.success) return record;
  throw new SkillportError({
    body: {
      code: record.error?.code ?? "execution_failed",
      message: record.error?.message ?? `Execution ${record.id} ended ${record.status}.`,
    },
    execution: record,
  });
}

/**
 * An id for a path, refused when empty: `/v1/executions/` or `/v1/skills/` is a listing,
 * which was taken for the record or skill asked for (and `waitForExecution` polled it
 * without end, each poll counted against the key).
 */
function nonEmpty(id: string, name: string): string {
  if (typeof id !== "string" || id === "") throw new TypeError(`${name} must be a non-empty string`);
  return id;
}
