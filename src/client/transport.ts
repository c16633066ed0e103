import { finished } from "node:stream";
import type { Dispatcher } from "undici";
import type { AnswerShape } from "./answer-shapes.js";
import type { ClientConfig } from "./config.js";
import { Deadline } from "./deadline.js";
import { clientClosed, clientError, errorBodyOf, SkillportError } from "./errors.js";
import { redirectError } from "./redirect.js";
import { decideRetry, mayHaveReachedService, retryAfterHeaderMs, sleep } from "./retry.js";

/** One logical call answering `T`; the transport may send it several times. */
export interface RequestSpec<T = unknown> {
  method: "GET" | "POST";
  /** Path and query under the base URL, e.g. `/v1/executions?limit=20`. */
  path: string;
  json?: unknown;
  /** What a successful JSON answer must look like; anything else is `unexpected_response`. */
  shape?: AnswerShape<T>;
  headers?: Record<string, string>;
  signal?: AbortSignal | undefined;
  /**
   * Time the call itself asks the server to spend before answering (a synchronous
   * execution's timeout, a long poll's wait), allowed on top of `timeoutMs`.
   */
  serverTimeMs?: number;
  /**
   * Called with the refusal that ends the call when an earlier attempt of it may have
   * reached the service (`mayHaveReachedService`): the refusal may be that attempt's own
   * doing, e.g. a cancel meeting the execution it cancelled. Resolves with the call's
   * answer after all, or undefined to let the refusal stand.
   */
  answerAfterLostAttempt?: (refusal: SkillportError) => Promise<T | undefined>;
  /**
   * Called with an `idempotency_in_progress` refusal when the run under way may be this
   * call's own (see `keyChosenByCaller`): resolves with the call's answer after all (an
   * async execute's: that run's record as it stands), or undefined to wait the run out.
   */
  answerWhileInProgress?: (refusal: SkillportError) => Promise<T | undefined>;
  /**
   * The caller chose the Idempotency-Key: an earlier call of theirs with it may still be
   * running, and `idempotency_in_progress` is waited out as after a lost attempt.
   */
  keyChosenByCaller?: boolean;
  /**
   * The same request was sent before, by an earlier call of the client's own (a streamed
   * execute sent again after its stream was cut): it may have run, as after a lost attempt.
   */
  earlierAttemptMayHaveLanded?: boolean;
}

/** How long a stream may stay silent: the server sends a keep-alive comment every 15 s. */
const STREAM_IDLE_MS = 45_000;

const TIMEOUT_ERROR_CODES: ReadonlySet<string> = new Set(["UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT"]);
/**
 * undici's refusals of the request itself: a bug in the calling code, rethrown as it is.
 * A closed client is `client_closed`; every other failure below HTTP (the socket, name
 * resolution, TLS) is a `connection_error`.
 */
const MISUSE_ERROR_CODES: ReadonlySet<string> = new Set([
  "UND_ERR_INVALID_ARG",
  "UND_ERR_INVALID_RETURN_VALUE",
  "UND_ERR_NOT_SUPPORTED",
  "UND_ERR_REQ_CONTENT_LENGTH_MISMATCH",
]);
/**
 * undici's refusals of a call on a pool that was closed: a dispatcher the caller passed in
 * and closed themselves (the client closes its own only once no call is left in flight).
 */
const CLOSED_ERROR_CODES: ReadonlySet<string> = new Set(["UND_ERR_CLOSED", "UND_ERR_DESTROYED"]);

type Attempt<T> = { ok: true; value: T } | { ok: false; error: SkillportError; retryAfterHeader?: string };

/**
 * Sends requests with the key, and retries what is worth retrying (retry.ts decides
 * which and how long to wait). Everything that leaves it is a value or a `SkillportError`,
 * except the caller's own abort, which rejects with the signal's reason.
 */
export class Transport {
  constructor(private readonly config: ClientConfig) {}

  /** The parsed JSON body of a successful response, of the spec's shape. */
  json<T>(spec: RequestSpec<T> & { shape: AnswerShape<T> }): Promise<T> {
    return this.send(spec, false, async (response) => {
      const text = await textWithin(response, MAX_ANSWER_BYTES);
      if (text === undefined) {
        throw unexpectedAnswer(response, `an answer over ${MAX_ANSWER_BYTES / 1024 / 1024} MiB`);
      }
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        throw unexpectedAnswer(response, "a body that is not JSON");
      }
      if (!spec.shape.matches(value)) throw unexpectedAnswer(response, `JSON that is not ${spec.shape.what}`);
      return value;
    });
  }

  /** The body of a successful streaming response (Server-Sent Events), unread. */
  stream(spec: RequestSpec<Dispatcher.ResponseData["body"]>): Promise<Dispatcher.ResponseData["body"]> {
    return this.send(spec, true, async (response) => {
      // A proxy's page or a JSON body would read as a stream without a single event.
      const type = String(response.headers["content-type"] ?? "");
      if (!/^text\/event-stream\s*(;|$)/i.test(type)) {
        await response.body.dump();
        throw unexpectedAnswer(response, `${type || "no content type"} instead of an event stream`);
      }
      return response.body;
    });
  }

  private async send<T>(
    spec: RequestSpec<T>,
    streaming: boolean,
    read: (response: Dispatcher.ResponseData) => Promise<T>,
  ): Promise<T> {
    const { maxRetries, retryRefusals, timeoutMs, onRetry } = this.config;
    const startedMs = Date.now();
    let retriesLeft = maxRetries;
    // Set once an attempt failed in a way that may have reached the service, so a later
    // attempt's answer may be the consequence of that one.
    let earlierAttemptMayHaveLanded = spec.earlierAttemptMayHaveLanded === true;
    for (let retry = 1; ; retry++) {
      const outcome = await this.attempt(spec, streaming, read);
      if (outcome.ok) return outcome.value;
      const { error } = outcome;
      const sameKeyMayBeRunning =
        (earlierAttemptMayHaveLanded || spec.keyChosenByCaller === true) &&
        Date.now() - startedMs < attemptBudgetMs(timeoutMs, spec);
      if (error.code === "idempotency_in_progress" && sameKeyMayBeRunning) {
        const answer = await spec.answerWhileInProgress?.(error);
        if (answer !== undefined) return answer;
      }
      const decision = decideRetry({
        error,
        retryAfterHeader: outcome.retryAfterHeader,
        retry,
        retriesLeft,
        retryRefusals,
        earlierAttemptMayHaveLanded,
        sameKeyMayBeRunning,
        nowMs: Date.now(),
      });
      if (decision === undefined) {
        const answer = earlierAttemptMayHaveLanded ? await spec.answerAfterLostAttempt?.(error) : undefined;
        if (answer === undefined) throw error;
        return answer;
      }
      if (mayHaveReachedService(error)) earlierAttemptMayHaveLanded = true;
      if (decision.counted) retriesLeft--;
      onRetry?.({ retry, delayMs: decision.delayMs, error, method: spec.method, path: spec.path });
      await sleep(decision.delayMs, spec.signal);
    }
  }

  private async attempt<T>(
    spec: RequestSpec<T>,
    streaming: boolean,
    read: (response: Dispatcher.ResponseData) => Promise<T>,
  ): Promise<Attempt<T>> {
    const { config } = this;
    const headers: Record<string, string> = {
      authorization: `Bearer ${config.apiKey}`,
      accept: streaming ? "text/event-stream" : "application/json",
      ...spec.headers,
    };
    if (spec.json !== undefined) headers["content-type"] = "application/json";
    // The attempt's own timer bounds it from sending to the last byte of a JSON answer,
    // and a stream until its answer begins (its silences are undici's bodyTimeout's).
    // undici's own timers are off: they tick too coarsely (deadline.ts).
    const attemptMs = attemptBudgetMs(config.timeoutMs, spec);
    const deadline = new Deadline(attemptMs, spec.signal);
    let streamHandedOver = false;
    try {
      const response = await config.dispatcher.request({
        origin: config.origin,
        path: config.pathPrefix + spec.path,
        method: spec.method,
        headers,
        body: spec.json === undefined ? undefined : JSON.stringify(spec.json),
        signal: deadline.signal,
        headersTimeout: 0,
        bodyTimeout: streaming ? STREAM_IDLE_MS : 0,
      });
      if (response.statusCode >= 400) return { ok: false, ...(await errorOf(response)) };
      if (response.statusCode >= 300) {
        await response.body.dump();
        const location = response.headers.location;
        const where = { origin: config.origin, pathPrefix: config.pathPrefix, path: spec.path };
        return {
          ok: false,
          error: redirectError(response.statusCode, Array.isArray(location) ? location[0] : location, where),
        };
      }
      const value = await read(response);
      if (streaming) {
        // The caller's abort still has to reach the stream being read; the listener
        // forwarding it goes when the stream ends.
        deadline.stopClock();
        finished(response.body, () => deadline.dispose());
        streamHandedOver = true;
      }
      return { ok: true, value };
    } catch (err) {
      if (spec.signal?.aborted) throw spec.signal.reason;
      if (deadline.expired) {
        const error = clientError("timeout", `No answer from ${config.origin} within ${attemptMs} ms.`, err);
        return { ok: false, error };
      }
      return { ok: false, error: failureOf(err, config.origin) };
    } finally {
      if (!streamHandedOver) deadline.dispose();
    }
  }
}

/** A successful status with an answer the client cannot take (not skillport's, or not what was asked). */
function unexpectedAnswer(response: Dispatcher.ResponseData, what: string): SkillportError {
  return new SkillportError({
    status: response.statusCode,
    body: { code: "unexpected_response", message: `HTTP ${response.statusCode} with ${what}` },
  });
}

/**
 * A failure below HTTP as a `SkillportError`: a timeout; an answer that is not HTTP, or
 * shorter than it said (`unexpected_response`); any failure to connect, resolve the name,
 * agree on TLS, or keep the connection (`connection_error`, retried); a call on a closed
 * client (`client_closed`). A `SkillportError` passes through; a misuse of undici (an
 * invalid header) is rethrown.
 */
export function failureOf(err: unknown, origin: string): SkillportError {
  if (err instanceof SkillportError) return err;
  const code = (err as { code?: unknown } | null)?.code;
  const reason = err instanceof Error ? err.message : String(err);
  if (typeof code === "string" && CLOSED_ERROR_CODES.has(code)) return clientClosed(err);
  if (typeof code === "string" && TIMEOUT_ERROR_CODES.has(code)) {
    return clientError("timeout", `No answer from ${origin} in time (${reason}).`, err);
  }
  if (
    (err instanceof Error && err.name === "HTTPParserError") ||
    code === "UND_ERR_RES_CONTENT_LENGTH_MISMATCH"
  ) {
    return clientError(
      "unexpected_response",
      `The answer from ${origin} is not valid HTTP (${reason}).`,
      err,
    );
  }
  if (typeof code === "string" && !MISUSE_ERROR_CODES.has(code)) {
    return clientError("connection_error", `The connection to ${origin} failed: ${reason}`, err);
  }
  throw err;
}

/**
 * How long one attempt may take: the client's `timeoutMs` and the time the call asks the
 * server to spend. A time the server refuses (`timeout_ms: NaN`, sent as null, or below
 * zero) adds nothing: the server's 4xx is the answer, not a timeout after NaN ms.
 */
function attemptBudgetMs(timeoutMs: number, spec: { serverTimeMs?: number }): number {
  const serverTimeMs = spec.serverTimeMs ?? 0;
  return timeoutMs + (serverTimeMs > 0 && Number.isFinite(serverTimeMs) ? serverTimeMs : 0);
}

/**
 * The most a JSON answer may hold: the service's largest, a page of records whose results
 * reach their limit together (16 MiB), fits with room to spare. Past it the answer is no
 * answer of the service's (a proxy's or a broken server's), and is not read whole: held
 * in memory, it took gigabytes, and a retry downloaded it again.
 */
export const MAX_ANSWER_BYTES = 64 * 1024 * 1024;
/** The service's error bodies are a few hundred bytes, with details a few kilobytes. */
const MAX_ERROR_BYTES = 1024 * 1024;

/** The body as text; undefined, read no further (its connection dropped), past `maxBytes`. */
async function textWithin(response: Dispatcher.ResponseData, maxBytes: number): Promise<string | undefined> {
  const { body } = response;
  if (Number(response.headers["content-length"]) > maxBytes) {
    body.destroy();
    return undefined;
  }
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    // Leaving the loop destroys the body.
    if (bytes > maxBytes) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, bytes).toString("utf8");
}

/** An error response as a `SkillportError`, keeping the server's body verbatim. */
async function errorOf(
  response: Dispatcher.ResponseData,
): Promise<{ error: SkillportError; retryAfterHeader?: string }> {
  const status = response.statusCode;
  const text = await textWithin(response, MAX_ERROR_BYTES);
  let json: unknown;
  try {
    json = text === undefined ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  const body = errorBodyOf(json) ?? {
    code: "unexpected_response",
    message: `HTTP ${status} without the service's error body`,
  };
  const retryAfter = response.headers["retry-after"];
  const retryAfterHeader = Array.isArray(retryAfter) ? retryAfter[0] : retryAfter;
  // Read by the retries' own rule (retry.ts), rounded up: never sooner than asked.
  const headerWaitMs = retryAfterHeaderMs(retryAfterHeader, Date.now());
  return {
    error: new SkillportError({
      status,
      body,
      retryAfterHeaderSeconds: headerWaitMs === undefined ? undefined : Math.ceil(headerWaitMs / 1000),
    }),
    retryAfterHeader,
  };
}
