import { setTimeout as sleep } from "node:timers/promises";
import type { Config } from "../config.js";
import { sharedAbortController } from "../core/any-signal.js";
import { ServiceError } from "../core/errors.js";
import type { Scope } from "../core/keys/api-key.js";
import { isWellFormedSecret } from "../core/keys/secret.js";
import type { Logger } from "../core/logger.js";
import type { createLogger } from "../logging.js";
import { packageVersion } from "../package-files.js";
import type { HeldStopSignals } from "../stop-signals.js";
import { STORE_KINDS, storeKindOf } from "../store/store-kinds.js";
import type { SkillportBackend } from "./backend.js";
import { GuardedStdioTransport } from "./guarded-stdio-transport.js";
import { createMcpServer } from "./mcp-server.js";
import { MessageGuard } from "./message-guard.js";
import type { SkillToolOptions } from "./tool-catalog.js";

/**
 * A backend ready to answer tool calls, or why the key does not work. `finishWork` lets
 * the executions running in this process end until `deadlineMs` and interrupts the rest;
 * `interrupt` makes it interrupt them now and says how many there were; `close` then
 * releases what the backend holds.
 */
export type Opened =
  | {
      backend: SkillportBackend;
      /** The key's scope, when known at start (`--remote` with a key over its rate limit: not yet). */
      scope: Scope | undefined;
      finishWork: (deadlineMs: number) => Promise<void>;
      interrupt: () => number;
      close: () => Promise<void>;
    }
  | { refused: string };

/**
 * How long the executions of this process may go on once the client closed stdin and the
 * calls it had sent were answered (or ran out of SKILLPORT_SHUTDOWN_TIMEOUT_MS): the client
 * that would read of them is gone, and the SDK's `StdioClientTransport.close()` sends
 * SIGTERM 2 s after closing stdin and SIGKILL 2 s after that. The process must have
 * recorded its runs' ends by then: killed, it left them `running` in the store until
 * another process took them over.
 */
const STDIN_CLOSED_DEADLINE_MS = 1_000;

/**
 * The core in this process, on the configured store, for the key of `secret`. A key is
 * known only to the store it was created in, so a refusal names the store: an assistant's
 * configuration pointing at another data directory (or none: `./data` of wherever the
 * assistant starts the process) is the likely cause. The caller has refused a data
 * directory with no store (`missingStore`): opening would create one there.
 */
export async function openEmbedded(config: Config, secret: string, logger: Logger): Promise<Opened> {
  const kind = storeKindOf(config);
  const store =
    kind === "sqlite"
      ? `It was checked against the store in ${config.dataDir}; SKILLPORT_DATA_DIR must be the data directory the key was created in.`
      : `It was checked against the ${STORE_KINDS[kind].label} database of SKILLPORT_DATABASE_URL.`;
  // Each mode loads only its own modules (start-up time matters to assistants that spawn us).
  const [{ createSkillport }, { EmbeddedBackend }] = await Promise.all([
    import("../bootstrap.js"),
    import("./embedded-backend.js"),
  ]);
  const skillport = await createSkillport(config, logger);
  let scope: Scope;
  try {
    ({ scope } = await skillport.keys.authenticate(secret));
  } catch (err) {
    await skillport.close();
    // A malformed secret is refused by its shape, before any store is asked.
    const where = isWellFormedSecret(secret) ? ` ${store}` : "";
    if (err instanceof ServiceError) return { refused: `${err.code}: ${err.message}${where}` };
    throw err;
  }
  await skillport.start();
  // Fired once this process's executions have ended at shutdown: a wait for another
  // process's execution then answers its record as it stands, as on `/mcp`, instead of
  // holding the call until the deadline and going unanswered.
  const waitsEnd = sharedAbortController();
  return {
    // Authenticated on every call, so that a revocation stops this process's key at once.
    backend: new EmbeddedBackend(skillport, () => skillport.keys.authenticate(secret), waitsEnd.signal),
    scope,
    finishWork: async (deadlineMs) => {
      await skillport.stop(deadlineMs);
      waitsEnd.abort();
    },
    interrupt: () => skillport.interrupt(),
    close: () => skillport.close(),
  };
}

/**
 * A running skillport at `baseUrl` (a base URL, as `skillport mcp` checked it), over REST
 * with the official client, for the key of `secret`: this process runs nothing itself and
 * opens no store. Its catalog is checked against `tools` as embedded mode checks its own
 * at start-up: a SKILLPORT_MCP_TOOL_TAGS tag no skill has is refused, and skills past
 * SKILLPORT_MCP_MAX_TOOLS are warned of.
 */
export async function openRemote(
  baseUrl: string,
  secret: string,
  tools: SkillToolOptions,
  logger: Logger,
): Promise<Opened> {
  const [{ Skillport: SkillportClient }, { RemoteBackend }, { checkToolTags }, { warnOfSkillsPastToolCap }] =
    await Promise.all([
      import("../client/index.js"),
      import("./remote-backend.js"),
      import("./tool-tags.js"),
      import("./tool-catalog.js"),
    ]);
  // A refusal (429 above all) is the tool call's answer, at once, as in embedded mode; the
  // assistant decides whether to call again. A lost answer is retried: the run it may
  // have started is then answered by its record, instead of a failure that an assistant
  // calling again would turn into a second run.
  const client = new SkillportClient({ apiKey: secret, baseUrl, retryRefusals: false });
  let backend: Awaited<ReturnType<typeof RemoteBackend.connect>>;
  try {
    backend = await RemoteBackend.connect(client, { baseUrl, logger });
    // The catalog the tools are listed from, fetched now rather than at the first
    // tools/list (which then uses it). A key over its rate limit gets none yet: nothing
    // is checked or warned of.
    const skills = await backend.catalogAtStart();
    if (skills.length > 0) {
      if (tools.tags.length > 0) checkToolTags(tools.tags, skills);
      const catalog = skills.map((skill) => ({ id: skill.skill_id, tags: skill.tags }));
      warnOfSkillsPastToolCap(catalog, tools, logger);
    }
  } catch (err) {
    await client.close();
    if (err instanceof ServiceError && err.status === 401) {
      return { refused: `${err.code}: ${err.message} It was checked by the skillport at ${baseUrl}.` };
    }
    if (!(err instanceof ServiceError)) throw err;
    // An outage comes naming the server, the outage itself its cause (RemoteBackend's
    // `reached`): the server is named here once, with the outage's own reason.
    const failure = err.cause instanceof ServiceError ? err.cause : err;
    // A 404 (`not_found` is the path's) or an answer that is not skillport's: another server.
    const elsewhere =
      failure.code === "not_found" ||
      (failure.cause as { code?: unknown } | undefined)?.code === "unexpected_response";
    const hint = elsewhere ? " Is it the base URL of a skillport server, such as http://127.0.0.1:8080?" : "";
    const reason = failure.message.replace(/([^.?!])$/, "$1.");
    throw new Error(`skillport mcp: cannot use the skillport at ${baseUrl}: ${reason}${hint}`, {
      cause: err,
    });
  }
  // The executions run in the skillport behind, which outlives this bridge.
  return {
    backend,
    scope: backend.knownScope(),
    finishWork: async () => {},
    interrupt: () => 0,
    close: () => client.close(),
  };
}

/** A JSON-RPC error answer, for a message the transport is not given (`MessageGuard`). */
function errorAnswer(id: string | number | null, code: number, message: string, data?: object) {
  return { jsonrpc: "2.0", id, error: { code, message, ...(data && { data }) } };
}

/**
 * Serves MCP on stdin/stdout until the client closes stdin or a signal arrives (one held
 * by `stopSignals` while the command started too). A signal during the stop interrupts the
 * executions still running at once; a second one exits.
 */
export async function serveStdio(
  { backend, scope, finishWork, interrupt, close }: Extract<Opened, { backend: SkillportBackend }>,
  config: Config,
  logger: ReturnType<typeof createLogger>,
  stopSignals: HeldStopSignals,
): Promise<void> {
  const { server, drained } = createMcpServer(backend, {
    ...config.mcp,
    version: packageVersion(),
    logger,
    scope,
  });
  let stopping = false;
  let interrupted = false;
  let endDrain = () => {};
  const drainEnded = new Promise<void>((resolve) => {
    endDrain = resolve;
  });
  const stop = async (reason: string, deadlineMs: number, callsRead?: () => Promise<void>) => {
    if (stopping) return;
    stopping = true;
    logger.info({ reason, deadline_ms: deadlineMs }, "mcp: stopping");
    // The calls read before stdin ended run to their end (`callsRead`), for at most
    // SKILLPORT_SHUTDOWN_TIMEOUT_MS as on a signal: stopping the core first refused each one
    // `service_unavailable`, so a one-shot pipe (`printf … | skillport mcp`) could run
    // nothing, and a second (the stdin deadline) is too short for a first call's start on a
    // busy machine. Nothing can arrive after them. A client that would not wait (the SDK's
    // sends SIGTERM 2 s after closing stdin) interrupts them at once by that signal.
    if (callsRead) await Promise.race([callsRead(), drainEnded, sleep(config.shutdownTimeoutMs)]);
    // Executions in progress finish until the deadline, then end `execution_interrupted`;
    // every call is answered before the transport closes (closing it first would cancel
    // them instead).
    await finishWork(deadlineMs);
    await Promise.race([drained(), drainEnded, sleep(deadlineMs)]);
    await server.close();
    await close();
    logger.info({}, "mcp: stopped");
    logger.flush();
    process.exit(0);
  };
  const stopOn = (reason: string, deadlineMs: number, callsRead?: () => Promise<void>) => {
    stop(reason, deadlineMs, callsRead).catch((err: unknown) => {
      logger.error({ err }, "mcp: shutdown failed");
      process.exit(1);
    });
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (!stopping) {
      stopOn(signal, config.shutdownTimeoutMs);
    } else if (!interrupted) {
      // A client that does not wait (the SDK's SIGTERM 2 s after closing stdin), or Ctrl-C
      // twice: the runs still going end `execution_interrupted` now and the stop ends with
      // them, rather than the process being killed with them `running` in the store.
      interrupted = true;
      logger.warn(
        { signal, executions: interrupt() },
        "mcp: signal during the stop: interrupting executions now",
      );
      endDrain();
    } else {
      logger.error({ signal }, "mcp: another signal during the stop: exiting at once");
      logger.flush();
      process.exit(130);
    }
  };
  const answer = (message: object) => process.stdout.write(`${JSON.stringify(message)}\n`);
  const messages = process.stdin.pipe(
    new MessageGuard(config.maxBodyBytes, {
      // An over-size message is JSON-RPC's "invalid request" (SKILLPORT_MAX_BODY_BYTES, as
      // for `/v1` and `/mcp`), for the request's id when one was found.
      oversized: ({ id, bytes }) => {
        logger.warn({ bytes, limit: config.maxBodyBytes }, "mcp: refused a message over the size limit");
        const limit = config.maxBodyBytes;
        answer(
          errorAnswer(
            id,
            -32600,
            `payload_too_large: the message is over the limit of ${limit} bytes (SKILLPORT_MAX_BODY_BYTES); send less.`,
          ),
        );
      },
      // Only the code and id go to the log, never the line, which may hold a secret.
      malformed: ({ id, code, message, data }) => {
        logger.warn({ code, id }, "mcp: refused a malformed message");
        answer(errorAnswer(id, code, message, data));
      },
    }),
  );
  // The messages the guard parsed, each once, reach the server as they are.
  const transport = new GuardedStdioTransport(messages, process.stdout);
  transport.onerror = (err) => logger.warn({ err }, "mcp: stdin could not be read");
  transport.onclose = () => stopOn("transport closed", config.shutdownTimeoutMs);
  // The calls read before stdin ended are answered once the guard has passed on its last
  // message (`end`) and they have ended (`drained`).
  const lastMessageRead = new Promise<void>((resolve) => messages.once("end", resolve));
  process.stdin.once("end", () =>
    stopOn("stdin closed", Math.min(config.shutdownTimeoutMs, STDIN_CLOSED_DEADLINE_MS), async () => {
      await lastMessageRead;
      await drained();
    }),
  );
  await server.connect(transport);
  logger.info({ version: packageVersion() }, "mcp: serving on stdio");
  // A signal held while the store opened or the transport connected stops it now.
  await stopSignals.handleWith(onSignal);
}
