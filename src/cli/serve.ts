import { createSkillport } from "../bootstrap.js";
import { type Config, warnOfUnknownVariables } from "../config.js";
import type { Skillport } from "../core/skillport.js";
import { buildHttpServer, type HttpServer } from "../http/server.js";
import { createLogger } from "../logging.js";
import { packageVersion } from "../package-files.js";
import { holdStopSignals } from "../stop-signals.js";
import { DATA_DIR_SETTING, serverAddress } from "../store/open-store.js";
import { databaseFileIn } from "../store/sqlite/index.js";
import { describeStoreFailure, reasonOf } from "../store/sqlite/open-failure.js";
import { storeKindOf } from "../store/store-kinds.js";
import { commandConfig } from "./command-config.js";
import { parseCommandArgs } from "./command-options.js";
import { SERVE } from "./commands.js";
import { logCrashes } from "./crash-log.js";
import { noKeysHint } from "./no-keys-hint.js";

/** How long a shutdown may take past SKILLPORT_SHUTDOWN_TIMEOUT_MS to close the server and the store. */
const SHUTDOWN_GRACE_MS = 15_000;

/** `skillport serve`: the REST API on the configured store, until a stop signal (`STOP_SIGNALS`). */
export async function runServe(args: string[]): Promise<number> {
  const { values } = parseCommandArgs(SERVE, args);
  const config = commandConfig(SERVE, values);
  const logger = createLogger(config.logLevel);
  // From here on a signal stops the server as it stops once listening (`stop` below).
  const stopSignals = holdStopSignals(logger);
  logCrashes("serve", logger);
  warnOfUnknownVariables(logger);
  const skillport = await createSkillport(config, logger);
  const server = buildHttpServer(skillport, {
    logger,
    maxBodyBytes: config.maxBodyBytes,
    requestTimeoutMs: config.requestTimeoutMs,
    trustProxy: config.trustProxy,
    version: packageVersion(),
    mcp: { ...config.mcp, bindHost: config.host },
  });
  let address: string;
  try {
    // Bound before the core starts: a server that cannot listen (the port taken by another
    // `serve` on this data dir, a supervisor's restart loop) must not have taken over the
    // store's queued executions, to run them with nothing to answer or stop it.
    address = await server.app.listen({ port: config.port, host: config.host });
  } catch (err) {
    logger.fatal({ err, host: config.host, port: config.port }, "cannot listen");
    await closeAll(server, skillport, logger);
    // The log line may be silenced (SKILLPORT_LOG_LEVEL=silent) or collected elsewhere: the
    // person who started the server reads why on stderr, as for a configuration error
    // (src/cli.ts prints a rejected command's message there and exits 1).
    const where = hostAndPort(config.host, config.port);
    throw new Error(`skillport serve: cannot listen on ${where}: ${listenProblem(err)}`, { cause: err });
  }

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal, deadline_ms: config.shutdownTimeoutMs }, "shutting down");
    // Every store call has a deadline (a hung PostgreSQL or Redis costs each a few seconds),
    // but a shutdown makes several in a row; past the executions' deadline and this grace
    // the process exits anyway, as a supervisor would kill it: peers recover what it held.
    setTimeout(() => {
      logger.error({ grace_ms: SHUTDOWN_GRACE_MS }, "shutdown did not finish in time; exiting");
      logger.flush();
      process.exit(1);
    }, config.shutdownTimeoutMs + SHUTDOWN_GRACE_MS).unref();
    // Running executions get until the deadline; the server stops taking requests meanwhile,
    // and the streams and long polls following them end with their terminal status.
    const executionsEnded = skillport.stop(config.shutdownTimeoutMs);
    await Promise.all([server.close(executionsEnded), executionsEnded]);
    await skillport.close();
    logger.info({}, "stopped");
    logger.flush();
    process.exit(0);
  };
  let interrupted = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (!stopping) {
      stop(signal).catch((err: unknown) => {
        logger.error({ err }, "shutdown failed");
        process.exit(1);
      });
    } else if (!interrupted) {
      // A second signal (Ctrl-C twice, a supervisor that does not wait): the runs still
      // going end `execution_interrupted` now and the stop under way ends with them, rather
      // than the process dying with them `running` in the store until the next start.
      interrupted = true;
      logger.warn(
        { signal, executions: skillport.interrupt() },
        "second signal: interrupting executions now",
      );
    } else {
      // A third: whatever the stop still waits for (a store past its deadlines) is given up.
      logger.error({ signal }, "third signal: exiting at once");
      logger.flush();
      process.exit(130);
    }
  };
  await stopSignals.handleWith(onSignal);

  try {
    // A signal meanwhile stops the core once this start has ended (Skillport.stop); one
    // held while the store opened has stopped it already, and it does not start.
    await skillport.start();
  } catch (err) {
    // The bound port would keep the process alive, answering "starting" for ever, and a
    // supervisor would never restart it (a store out of reach at start, say).
    logger.fatal({ err }, "cannot start");
    if (!stopping) await closeAll(server, skillport, logger);
    // Said on stderr, as a port already taken is: a damaged table
    // or a read-only file is found only now, once the core reads and writes the store.
    throw new Error(`skillport serve: cannot start${startProblem(err, config)}`, { cause: err });
  }
  // A signal during the start: the shutdown under way answers what arrives meanwhile.
  if (stopping) return 0;
  server.open();
  const store = storeKindOf(config);
  logger.info(
    {
      address,
      version: packageVersion(),
      store,
      limits: config.redisUrl ? "redis" : "store",
      // Which database and Redis this replica joined (staging or production?), without credentials.
      ...(store === "sqlite" && { data_dir: config.dataDir }),
      ...(config.databaseUrl !== undefined && { database: serverAddress(config.databaseUrl) }),
      ...(config.redisUrl !== undefined && {
        redis: serverAddress(config.redisUrl),
        redis_key_prefix: config.redisKeyPrefix,
        redis_down: config.redisDown,
      }),
      skills: skillport.registry.size,
    },
    "skillport is listening",
  );
  // Said on the console, as the sign-in link is, to the person who just started a first
  // server. Only a courtesy: a store that cannot answer now is reported by what needs it.
  const hint = await noKeysHint(skillport.keys, config).catch(() => undefined);
  if (hint !== undefined) process.stderr.write(hint);
  return 0;
}

/** Closes the server and the core (the core even if the server's close fails) and flushes the log. */
async function closeAll(server: HttpServer, skillport: Skillport, logger: { flush(): void }): Promise<void> {
  try {
    await server.close();
  } finally {
    await skillport.close();
    logger.flush();
  }
}

/** Why the core could not start: on which store and what to do, when the store's file says. */
function startProblem(err: unknown, config: Config): string {
  const place = { filePath: databaseFileIn(config.dataDir), dataDirSetting: DATA_DIR_SETTING };
  const problem = storeKindOf(config) === "sqlite" ? describeStoreFailure(err, place) : undefined;
  return problem === undefined ? `: ${reasonOf(err)}` : ` on ${problem}`;
}

function hostAndPort(host: string, port: number): string {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}

/** Why `listen` failed, in words, with the setting that changes it. */
function listenProblem(err: unknown): string {
  switch ((err as NodeJS.ErrnoException).code) {
    case "EADDRINUSE":
      return "address already in use (another server? set SKILLPORT_PORT or --port)";
    case "EACCES":
      return "permission denied (a port below 1024 needs privileges: set SKILLPORT_PORT or --port)";
    case "EADDRNOTAVAIL":
      return "address not available (no interface of this machine has it: set SKILLPORT_HOST or --host)";
    // A name the resolver does not know, or could not look up.
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return "cannot resolve this host name (set SKILLPORT_HOST or --host to an address of this machine, such as 127.0.0.1, or 0.0.0.0 for all)";
    default:
      return err instanceof Error ? err.message : String(err);
  }
}
