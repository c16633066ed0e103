import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  CancelledNotificationSchema,
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";
import type { Admission } from "../../core/access.js";
import { sharedAbortController } from "../../core/any-signal.js";
import type { ApiKey } from "../../core/keys/api-key.js";
import type { Skillport } from "../../core/skillport.js";
import { EmbeddedBackend } from "../../mcp/embedded-backend.js";
import { createMcpServer, type McpServerOptions } from "../../mcp/mcp-server.js";
import { ReplayBuffer } from "./session-event-store.js";

export interface McpSessionOptions extends McpServerOptions {
  /** A session unused this long is closed. */
  idleMs: number;
  /** Open sessions at most. */
  maxSessions: number;
}

/**
 * How long shutdown waits, once the executions have ended, for the calls still being
 * answered: their answers follow within a few turns (a `tasks/result` within its poll
 * interval), so only a request that will never be answered is cut off by this.
 */
const ANSWERS_AFTER_EXECUTIONS_MS = 5_000;

/**
 * How often the keys of open sessions are checked again: a session (and its event stream,
 * GET, which makes no request that would be refused) of a key revoked or expired, through
 * any process, ends within this.
 */
export const SESSION_KEY_CHECK_MS = 5_000;

/** One client's MCP session: bound to the key that opened it. */
export interface McpSession {
  readonly transport: StreamableHTTPServerTransport;
  readonly keyId: string;
  /** The key as admitted by the latest request of the session (its scope and limits). */
  key: ApiKey;
  lastUsed: number;
  /**
   * Requests of this session being answered (a held event stream, GET, is not one): a
   * session with one never expires nor is closed to make room.
   */
  active: number;
  /**
   * The JSON-RPC ids (`typeof id:id`) of the requests being answered, each to its POST,
   * until that POST's response ends. The transport routes an answer by its id alone, so a
   * second request with an id still in flight took the first one's answer and left the
   * first unanswered, its session busy for ever.
   */
  readonly idsInFlight: Map<string, PostInFlight>;
  /**
   * The counts made for the `tools/call` requests being answered (`typeof id:id`), before
   * the transport saw them, so that their response's limit headers include them. The tool
   * layer takes a call's count as it starts answering it and counts it no more.
   */
  readonly countedCalls: Map<string, Admission>;
  /**
   * Its key stopped working while it answered requests: it closes once they are answered
   * (see `closeRevoked`).
   */
  closesWhenAnswered?: boolean;
}

/** The requests of one POST being answered (a batch has several; they share its response). */
interface PostInFlight {
  /** Those neither answered nor cancelled yet (`typeof id:id`). */
  readonly awaiting: Set<string>;
  /** One the client cancelled: its POST is ended by closing the response stream of this id. */
  cancelled?: RequestId;
}

/**
 * The transport of a session, telling it each answer it sends. The SDK ends a POST's
 * response once each of its requests is answered; a request the client cancelled is not
 * (MCP says not to answer it), so its session ends that response itself (see settle).
 */
class SessionTransport extends StreamableHTTPServerTransport {
  onanswer?: (id: RequestId) => void;

  override async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    try {
      await super.send(message, options);
    } finally {
      // Also when sending failed (the client had gone): the request is no longer awaited.
      if ((isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) && message.id !== undefined) {
        this.onanswer?.(message.id);
      }
    }
  }
}

/**
 * The stateful Streamable HTTP sessions of `/mcp`: each has its own transport and MCP
 * server over the embedded core, acting for the key that opened it. Idle sessions
 * expire; their state is memory only, so a client re-initializes after a restart.
 */
export class McpSessions {
  private readonly sessions = new Map<string, McpSession>();
  private readonly sweeper: NodeJS.Timeout;
  /** The recent events of every session's streams, for clients that resume one. */
  private readonly replay = new ReplayBuffer();
  /** True while `closeRevoked` runs: a slow store does not stack up checks. */
  private checkingKeys = false;
  /** The requests being answered, across sessions: shutdown waits for them. */
  private readonly answering = new Set<Promise<void>>();
  #closed = false;
  /** Fires at shutdown once the executions have ended: long waits end then (see closeAll). */
  private readonly waitsEnd = sharedAbortController();

  constructor(
    private readonly skillport: Skillport,
    private readonly options: McpSessionOptions,
  ) {
    this.sweeper = setInterval(
      () => {
        this.closeIdle();
        void this.closeRevoked();
      },
      Math.min(SESSION_KEY_CHECK_MS, options.idleMs),
    );
    this.sweeper.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  /**
   * Makes room for one more session of `keyId`, and says whether there is. When every slot
   * is taken, an idle session closes: the least recently used one of the key holding the
   * most sessions (the asking key, in a tie), among the keys holding at least as many as
   * the asking key. So one key alone may use every slot, yet cannot keep other keys out by
   * filling them, nor take a smaller key's slot. The client of the closed session is told
   * to initialize again, as after expiry. Idle means no request being answered: a held
   * event stream (GET) does not count.
   */
  makeRoomFor(keyId: string): boolean {
    if (this.sessions.size < this.options.maxSessions) return true;
    const held = this.sessionsByKey();
    const asking = held.get(keyId)?.length ?? 0;
    const victim = [...held]
      .filter(([, sessions]) => sessions.length >= asking)
      // Most sessions first; in a tie, the asking key's own.
      .sort(
        ([a, aSessions], [b, bSessions]) =>
          bSessions.length - aSessions.length || (a === keyId ? -1 : b === keyId ? 1 : 0),
      )
      .map(([, sessions]) => leastRecentlyUsed(sessions.filter((session) => session.active === 0)))
      .find((session) => session !== undefined);
    if (!victim) return false;
    if (victim.transport.sessionId) this.sessions.delete(victim.transport.sessionId);
    victim.transport.close().catch(() => {});
    return true;
  }

  get(id: string): McpSession | undefined {
    return this.sessions.get(id);
  }

  /** True once shutdown has closed the sessions: a request admitted before is refused as shutting down. */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Closes a session whose `initialize` the transport refused (a 406 for an Accept header
   * without text/event-stream, a malformed request): it never got an id, so no request can
   * reach it again, and its MCP server (subscribed to the skill registry) would otherwise
   * stay for the life of the process, one per refused request.
   */
  discardIfUnopened(session: McpSession): void {
    if (session.transport.sessionId === undefined) session.transport.close().catch(() => {});
  }

  /** A new session for `key`; it is registered once its `initialize` is answered. */
  async open(key: ApiKey): Promise<McpSession> {
    let session: McpSession | undefined;
    const transport = new SessionTransport({
      sessionIdGenerator: () => randomUUID(),
      // A cut response stream is resumed, not lost (see SessionEventStore).
      eventStore: this.replay.forSession(),
      onsessioninitialized: (id) => {
        // An initialize answered after shutdown closed the sessions is closed with them.
        if (this.#closed) transport.close().catch(() => {});
        else if (session) this.sessions.set(id, session);
      },
    });
    session = {
      transport,
      keyId: key.id,
      key,
      lastUsed: Date.now(),
      active: 0,
      idsInFlight: new Map(),
      countedCalls: new Map(),
    };
    const opened = session;
    transport.onanswer = (id) => settle(opened, id);
    // Sees each message the transport accepted, just before the MCP server does (the SDK
    // chains the handler found at connect). A cancellation is settled once the server has
    // aborted the request's handler (within this turn), so that no answer of it follows;
    // the server ignores one for a falsy id (0, ""), and so does this.
    transport.onmessage = (message) => {
      if (!isJSONRPCNotification(message) || message.method !== "notifications/cancelled") return;
      const cancelled = CancelledNotificationSchema.safeParse(message);
      const id = cancelled.success ? cancelled.data.params.requestId : undefined;
      if (id) setImmediate(() => settle(opened, id, true));
    };
    const backend = new EmbeddedBackend(this.skillport, async () => opened.key, this.waitsEnd.signal);
    const { server } = createMcpServer(backend, {
      ...this.options,
      scope: key.scope,
      countedCall: (id) => takeCount(opened, id),
    });
    transport.onclose = () => {
      if (transport.sessionId) this.sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    return session;
  }

  /**
   * Answers one HTTP request of `session` (`answer` writes the response): the session is in
   * use meanwhile, so it neither expires nor is closed to make room, and shutdown waits.
   * `countedCalls` are the counts made for its `tools/call` requests, by request id.
   */
  async answer(
    session: McpSession,
    answer: () => Promise<void>,
    requestIds: readonly string[] = [],
    countedCalls: ReadonlyMap<string, Admission> = new Map(),
  ): Promise<void> {
    session.active++;
    const post: PostInFlight = { awaiting: new Set(requestIds) };
    for (const id of requestIds) session.idsInFlight.set(id, post);
    for (const [id, counted] of countedCalls) session.countedCalls.set(id, counted);
    const answered = answer();
    this.answering.add(answered);
    try {
      await answered;
    } finally {
      this.answering.delete(answered);
      for (const id of requestIds) {
        if (session.idsInFlight.get(id) === post) session.idsInFlight.delete(id);
      }
      // A call the transport refused before the tool layer saw it (a malformed one) stays
      // counted, as every tools/call does (contract.md, "Limits").
      for (const [id, counted] of countedCalls) {
        if (session.countedCalls.get(id) === counted) session.countedCalls.delete(id);
      }
      session.active--;
      if (session.active === 0 && session.closesWhenAnswered) session.transport.close().catch(() => {});
    }
  }

  /**
   * Closes every session at shutdown, once its calls are answered (README, "Reliability"):
   * the tool calls in flight get until `executionsEnded` (running executions finish until
   * the deadline, the rest end `execution_interrupted`); then waits for other processes'
   * executions end, answering the record as it stands, as REST long polls do. Closing a session
   * first would abort its calls' handlers, which cancels their executions (the SDK's
   * Protocol aborts every handler's signal on close) and leaves them unanswered. New
   * requests are refused meanwhile, by the server (503).
   */
  async closeAll(executionsEnded: Promise<unknown> = Promise.resolve()): Promise<void> {
    clearInterval(this.sweeper);
    await executionsEnded.catch(() => {});
    this.waitsEnd.abort();
    const grace = new AbortController();
    const answered = (async () => {
      // Each settles once its response is written; one read meanwhile joins the set.
      while (this.answering.size > 0) await Promise.allSettled(this.answering);
    })();
    await Promise.race([
      answered,
      sleep(ANSWERS_AFTER_EXECUTIONS_MS, undefined, { signal: grace.signal }).catch(() => {}),
    ]);
    grace.abort();
    this.#closed = true;
    const open = [...this.sessions.values()];
    await Promise.allSettled(open.map((session) => session.transport.close()));
    this.sessions.clear();
    this.options.logger.info({ sessions: open.length }, "closed the MCP sessions");
  }

  /**
   * Closes the sessions of keys that no longer work (revoked or expired, through any
   * process), one lookup per key. A key that cannot be looked up (a store outage) keeps its
   * sessions: their next request is refused or answered as the store allows. A session
   * answering requests closes once they are answered: its calls were admitted while the
   * key worked, and run to their answer as a `/v1` request or a stdio call does; closing it
   * at once aborted their handlers, which cancelled their runs and left the client waiting
   * out its timeout for an answer that never came. Its next request is refused meanwhile.
   */
  private async closeRevoked(): Promise<void> {
    if (this.checkingKeys || this.#closed) return;
    this.checkingKeys = true;
    try {
      for (const [keyId, sessions] of this.sessionsByKey()) {
        const [first] = sessions;
        if (!first || (await this.skillport.keys.stillWorks(first.key).catch(() => true))) continue;
        this.options.logger.info(
          { key_id: keyId, sessions: sessions.length },
          "closed the MCP sessions of a revoked or expired key",
        );
        for (const session of sessions) {
          if (session.active === 0) session.transport.close().catch(() => {});
          else session.closesWhenAnswered = true;
        }
      }
    } finally {
      this.checkingKeys = false;
    }
  }

  /** The open sessions, by the id of the key that opened each. */
  private sessionsByKey(): Map<string, McpSession[]> {
    const byKey = new Map<string, McpSession[]>();
    for (const session of this.sessions.values()) {
      const sessions = byKey.get(session.keyId);
      if (sessions) sessions.push(session);
      else byKey.set(session.keyId, [session]);
    }
    return byKey;
  }

  private closeIdle(): void {
    const cutoff = Date.now() - this.options.idleMs;
    for (const session of this.sessions.values()) {
      if (session.active === 0 && session.lastUsed < cutoff) session.transport.close().catch(() => {});
    }
  }
}

/**
 * Request `id` of `session` was answered, or cancelled by the client (`notifications/cancelled`).
 * Once every request of its POST is either, with one cancelled, the POST's response is ended:
 * the SDK would hold it open for the answer it will never send, and the session would stay
 * in use for ever (never expiring, never closed to make room, so that one key cancelling
 * calls could hold every session slot). The id stays in flight until then.
 */
function settle(session: McpSession, id: RequestId, cancelled = false): void {
  const key = requestIdKey(id);
  const post = session.idsInFlight.get(key);
  if (!post?.awaiting.delete(key)) return;
  if (cancelled) post.cancelled = id;
  if (post.awaiting.size === 0 && post.cancelled !== undefined)
    session.transport.closeSSEStream(post.cancelled);
}

function leastRecentlyUsed(sessions: McpSession[]): McpSession | undefined {
  return sessions.reduce<McpSession | undefined>(
    (oldest, session) => (oldest === undefined || session.lastUsed < oldest.lastUsed ? session : oldest),
    undefined,
  );
}

/** The count the route made for request `id` of `session`, if any: taken, so that it serves one call. */
function takeCount(session: McpSession, id: RequestId): Admission | undefined {
  const key = requestIdKey(id);
  const counted = session.countedCalls.get(key);
  session.countedCalls.delete(key);
  return counted;
}

/** A JSON-RPC request id as the session's maps hold it: `1` and `"1"` are different requests. */
export function requestIdKey(id: RequestId): string {
  return `${typeof id}:${id}`;
}

/** The ids of the JSON-RPC requests in a POST body (one message or a batch), as `typeof id:id`. */
export function jsonRpcRequestIds(body: unknown): string[] {
  const messages = Array.isArray(body) ? body : [body];
  return messages.flatMap((message) => {
    if (typeof message !== "object" || message === null || !("method" in message) || !("id" in message))
      return [];
    const { id } = message as { id: unknown };
    return typeof id === "string" || typeof id === "number" ? [requestIdKey(id)] : [];
  });
}
