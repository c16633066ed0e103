import { isIP } from "node:net";
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { closest } from "fastest-levenshtein";
import { z } from "zod";
import type { Logger } from "./core/logger.js";
import { safeParseInWords } from "./core/validation.js";
import { wholeNumberText } from "./core/whole-number.js";
import { DATABASE_URL_RULE, kindOfDatabaseUrl } from "./store/store-kinds.js";

const int = wholeNumberText;
const commaList = z.string().transform((text) =>
  text
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== ""),
);
/**
 * Which proxies in front of the server to believe about the client's address (the
 * failed-authentication limit is per address) and scheme. `true` trusts one, the one the
 * server is connected to: its address for the client is the last in `X-Forwarded-For`,
 * where it appended it. The earlier entries are whatever the client sent, and trusting
 * them (as trusting every hop does) would let a client pick a fresh limit per request. A
 * number trusts that many hops (a CDN in front of a load balancer: 2); a list of
 * addresses or CIDR ranges trusts those proxies wherever they stand.
 */
const trustedProxies = z.string().transform((text, ctx): false | number | string[] => {
  const value = text.trim();
  if (value === "false" || value === "0") return false;
  if (value === "true") return 1;
  if (/^\d{1,2}$/.test(value)) return Number(value);
  const proxies = value.split(",").map((item) => item.trim());
  if (proxies.every(isAddressOrRange)) return proxies;
  ctx.addIssue({
    code: "custom",
    message:
      "must be true, false, a number of proxy hops, or a comma-separated list of proxy addresses or CIDR ranges",
  });
  return z.NEVER;
});

function isAddressOrRange(text: string): boolean {
  const [address = "", bits, ...rest] = text.split("/");
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return false;
  return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (version === 4 ? 32 : 128));
}

/** Host names the server is reached by (`example.com`, `example.com:8443`, `[::1]`), not URLs. */
const hostList = commaList.refine(
  (hosts) => hosts.every((host) => /^(\[[0-9a-f:.]+\]|[a-z0-9._-]+)(:\d{1,5})?$/i.test(host)),
  {
    message: "must be host names, each with an optional :port (example.com, not https://example.com/)",
  },
);
/** Browser origins: a scheme and a host, with an optional port, and no path. */
const originList = commaList.refine(
  // Any scheme: browsers send chrome-extension://…, vscode-webview://… or tauri://localhost too.
  (origins) => origins.every((origin) => /^[a-z][a-z0-9+.-]*:\/\/[^/\s@]+\/?$/i.test(origin)),
  {
    message: "must be origins, each a scheme and a host with an optional port (https://app.example.com)",
  },
);

/**
 * A URL setting's text, refused at once when empty (`SKILLPORT_REDIS_URL=` left in an
 * environment file or a template): it is said to be empty, with what unsetting it means,
 * rather than refused as a URL of the wrong form and again as a malformed one. The checks
 * chained after it stop at the first they fail (`abort`), for one message per problem.
 */
function urlText(form: string, whenUnset: string) {
  return z
    .string()
    .min(1, { message: `is set but empty: set ${form}, or unset it ${whenUnset}`, abort: true });
}

const jsonObject = z.string().transform((text, ctx) => {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === "object" && value !== null && !Array.isArray(value)) {
      return value as Record<string, Record<string, unknown>>;
    }
  } catch {
    // reported below
  }
  ctx.addIssue({ code: "custom", message: "must be a JSON object" });
  return z.NEVER;
});

/**
 * Every `SKILLPORT_*` variable, its default and its bounds. The README's configuration
 * table mirrors this list.
 */
const Env = z.object({
  SKILLPORT_PORT: int(0, 65535).default(8080),
  SKILLPORT_HOST: z.string().min(1).default("127.0.0.1"),
  SKILLPORT_DATA_DIR: z.string().min(1).default("./data"),
  SKILLPORT_LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  SKILLPORT_MAX_BODY_BYTES: int(1024, 64 * 1024 * 1024).default(1024 * 1024),
  SKILLPORT_REQUEST_TIMEOUT_MS: int(1000, 600_000).default(30_000),
  SKILLPORT_ASYNC_CONCURRENCY: int(1, 1024).default(16),
  SKILLPORT_FAILED_AUTH_PER_MINUTE: int(1, 1_000_000).default(30),
  SKILLPORT_RETENTION_DAYS: int(1, 3650).default(30),
  SKILLPORT_SHUTDOWN_TIMEOUT_MS: int(0, 600_000).default(10_000),
  SKILLPORT_TRUST_PROXY: trustedProxies.default(false),
  SKILLPORT_SKILL_CONFIG: jsonObject.default({}),
  SKILLPORT_DISCOVERY_MODE: z.enum(["hybrid", "lexical"]).default("hybrid"),
  SKILLPORT_DISCOVERY_LEARN_WINDOW_SECONDS: int(0, 86_400).default(300),
  // Long enough that guessing it is hopeless even without the failed-sign-in limit. Trimmed
  // as the sign-in form trims what is pasted: a secret file's final newline (a Kubernetes
  // secret made --from-file) made a token nobody could sign in with.
  SKILLPORT_ADMIN_TOKEN: z.string().trim().min(16, "must be at least 16 characters").max(512).optional(),
  SKILLPORT_WORKER_THREADS: int(1, 256).default(Math.min(4, Math.max(2, availableParallelism()))),
  SKILLPORT_WORKER_MEMORY_MB: int(16, 65_536).default(256),
  SKILLPORT_MAX_CONCURRENT_PER_KEY: int(1, 100_000).default(256),
  SKILLPORT_MAX_PENDING_EXECUTIONS: int(1, 1_000_000).default(1024),
  SKILLPORT_DATABASE_URL: urlText("a postgres:// URL", "to keep the store in SKILLPORT_DATA_DIR (SQLite)")
    .refine((url) => kindOfDatabaseUrl(url) !== undefined, DATABASE_URL_RULE)
    .optional(),
  SKILLPORT_DATABASE_POOL_SIZE: int(1, 1000).default(10),
  SKILLPORT_REDIS_URL: urlText(
    "a redis:// or rediss:// URL",
    "(with the SQLite store, limits are then counted in it)",
  )
    .regex(/^rediss?:\/\//, { message: "must be a redis:// or rediss:// URL", abort: true })
    // ioredis's own parse would fail with a bare "Invalid URL" that names no setting.
    .refine(
      (url) => URL.canParse(url),
      "is not a valid URL: check its host and port, and percent-encode special characters in the password",
    )
    .optional(),
  SKILLPORT_REDIS_KEY_PREFIX: z.string().max(100).default("skillport:"),
  SKILLPORT_REDIS_DOWN: z.enum(["local", "refuse"]).default("local"),
  SKILLPORT_REDIS_TIMEOUT_MS: int(10, 60_000).default(1_000),
  SKILLPORT_HEARTBEAT_MS: int(100, 600_000).default(5_000),
  SKILLPORT_MCP_MAX_TOOLS: int(0, 10_000).default(40),
  SKILLPORT_MCP_TOOL_TAGS: commaList.default([]),
  SKILLPORT_MCP_SESSION_IDLE_MS: int(1_000, 86_400_000).default(30 * 60_000),
  SKILLPORT_MCP_MAX_SESSIONS: int(1, 1_000_000).default(1_000),
  SKILLPORT_ALLOWED_HOSTS: hostList.default([]),
  SKILLPORT_ALLOWED_ORIGINS: originList.default([]),
});

/**
 * The variables that choose and open the store: all that the `keys` and `learning` commands
 * read, so that a bad server setting (SKILLPORT_PORT=abc in an environment file shared with
 * `serve`) does not stop an operator revoking a leaked key.
 */
const StoreEnv = Env.pick({
  SKILLPORT_DATA_DIR: true,
  SKILLPORT_DATABASE_URL: true,
  SKILLPORT_DATABASE_POOL_SIZE: true,
  SKILLPORT_REDIS_URL: true,
  SKILLPORT_REDIS_KEY_PREFIX: true,
  SKILLPORT_REDIS_DOWN: true,
  SKILLPORT_REDIS_TIMEOUT_MS: true,
});

/** What opening the store needs (`openStore`). */
export type StoreConfig = Pick<
  Config,
  | "dataDir"
  | "databaseUrl"
  | "databasePoolSize"
  | "redisUrl"
  | "redisKeyPrefix"
  | "redisDown"
  | "redisTimeoutMs"
>;

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  logLevel: z.output<typeof Env>["SKILLPORT_LOG_LEVEL"];
  maxBodyBytes: number;
  /** How long a request's headers and body may take to arrive. */
  requestTimeoutMs: number;
  asyncConcurrency: number;
  failedAuthPerMinute: number;
  retentionDays: number;
  shutdownTimeoutMs: number;
  /** The proxies whose `X-Forwarded-*` headers are believed: none, a number of hops, or their addresses. */
  trustProxy: false | number | string[];
  skillConfig: Record<string, Record<string, unknown>>;
  /** `hybrid`: BM25F fused with the shipped embedding model; `lexical`: BM25F only, no model loaded. */
  discoveryMode: "hybrid" | "lexical";
  /** Learning from use: an execution this long after the same key's discover is learned from; 0: off. */
  discoveryLearnWindowMs: number;
  /** The dashboard's sign-in token; undefined means one-time links printed by `serve`. */
  adminToken: string | undefined;
  /** Worker threads that run isolated skills. */
  workerThreads: number;
  /** Heap limit of one worker thread, in MiB. */
  workerMemoryMb: number;
  /** Unfinished executions one key may hold (429 concurrency_limit_exceeded beyond). */
  maxConcurrentPerKey: number;
  /** Unfinished executions one process holds (503 service_unavailable beyond). */
  maxPendingExecutions: number;
  /** The database for keys, records and the queue (scale-out, `storeKindOf`); the embedded SQLite file when absent. */
  databaseUrl: string | undefined;
  databasePoolSize: number;
  /** Redis for limit counters (required with `databaseUrl`). */
  redisUrl: string | undefined;
  /** Prefix of every Redis key (deployments sharing one Redis use different ones). */
  redisKeyPrefix: string;
  /** What limits do while Redis is unreachable (see `RedisDownPolicy`). */
  redisDown: "local" | "refuse";
  /** How long a Redis command may go unanswered before Redis counts as lost (ms). */
  redisTimeoutMs: number;
  /** How often each process's runner beats; six silent beats mean it died. */
  heartbeatMs: number;
  mcp: McpConfig;
}

export interface McpConfig {
  /** contract.md: one tool per skill up to this many (default 40). */
  maxTools: number;
  /** Only skills with one of these tags get their own tool (all when empty). */
  tags: string[];
  /** An HTTP session unused this long is closed. */
  idleMs: number;
  /** Open HTTP sessions at most; a new one beyond is refused with 503. */
  maxSessions: number;
  /** Host header values accepted on `/mcp` besides the loopback names (DNS-rebinding guard). */
  allowedHosts: string[];
  /** Origin header values accepted on `/mcp` besides the allowed hosts' own. */
  allowedOrigins: string[];
}

/** `SKILLPORT_*` variables read elsewhere: the client library's (README), and the test suite's services. */
const CLIENT_VARIABLES = ["SKILLPORT_API_KEY", "SKILLPORT_BASE_URL"];
const TEST_VARIABLE = /^SKILLPORT_TEST_/;

/**
 * The `SKILLPORT_*` variables of `env` that nothing reads, each with the known name closest
 * to it: a typo (SKILLPORT_RETENTON_DAYS) left its setting at the default without a word.
 */
export function unknownVariables(env: NodeJS.ProcessEnv): { name: string; closest: string }[] {
  const known = [...Object.keys(Env.shape), ...CLIENT_VARIABLES];
  return Object.keys(env)
    .filter((name) => name.startsWith("SKILLPORT_") && !known.includes(name) && !TEST_VARIABLE.test(name))
    .sort()
    .map((name) => ({ name, closest: closest(name, known) }));
}

/**
 * Logs one warning for each variable `unknownVariables` finds: through the service's logger
 * (`serve`, `mcp`), or on stderr (`keys`, `learning`).
 */
export function warnOfUnknownVariables(
  logger: Pick<Logger, "warn">,
  env: NodeJS.ProcessEnv = process.env,
): void {
  for (const { name, closest } of unknownVariables(env)) {
    logger.warn(
      { variable: name, closest },
      `${name} is not a skillport setting (ignored); did you mean ${closest}?`,
    );
  }
}

/** Reads the whole configuration (`serve`, `mcp`); a bad value stops start-up with a clear message. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const e = parseEnv(Env, env);
  return {
    port: e.SKILLPORT_PORT,
    host: e.SKILLPORT_HOST,
    logLevel: e.SKILLPORT_LOG_LEVEL,
    maxBodyBytes: e.SKILLPORT_MAX_BODY_BYTES,
    requestTimeoutMs: e.SKILLPORT_REQUEST_TIMEOUT_MS,
    asyncConcurrency: e.SKILLPORT_ASYNC_CONCURRENCY,
    failedAuthPerMinute: e.SKILLPORT_FAILED_AUTH_PER_MINUTE,
    retentionDays: e.SKILLPORT_RETENTION_DAYS,
    shutdownTimeoutMs: e.SKILLPORT_SHUTDOWN_TIMEOUT_MS,
    trustProxy: e.SKILLPORT_TRUST_PROXY,
    skillConfig: e.SKILLPORT_SKILL_CONFIG,
    discoveryMode: e.SKILLPORT_DISCOVERY_MODE,
    discoveryLearnWindowMs: e.SKILLPORT_DISCOVERY_LEARN_WINDOW_SECONDS * 1000,
    adminToken: e.SKILLPORT_ADMIN_TOKEN,
    workerThreads: e.SKILLPORT_WORKER_THREADS,
    workerMemoryMb: e.SKILLPORT_WORKER_MEMORY_MB,
    maxConcurrentPerKey: e.SKILLPORT_MAX_CONCURRENT_PER_KEY,
    maxPendingExecutions: e.SKILLPORT_MAX_PENDING_EXECUTIONS,
    ...storeConfigOf(e),
    heartbeatMs: e.SKILLPORT_HEARTBEAT_MS,
    mcp: {
      maxTools: e.SKILLPORT_MCP_MAX_TOOLS,
      tags: e.SKILLPORT_MCP_TOOL_TAGS,
      idleMs: e.SKILLPORT_MCP_SESSION_IDLE_MS,
      maxSessions: e.SKILLPORT_MCP_MAX_SESSIONS,
      allowedHosts: e.SKILLPORT_ALLOWED_HOSTS,
      allowedOrigins: e.SKILLPORT_ALLOWED_ORIGINS,
    },
    ...overrides,
  };
}

/**
 * Reads only the store's variables (the `keys` and `learning` commands): the others, which
 * those commands never use, may be unset or wrong.
 */
export function loadStoreConfig(env: NodeJS.ProcessEnv = process.env): StoreConfig {
  return storeConfigOf(parseEnv(StoreEnv, env));
}

function storeConfigOf(e: z.output<typeof StoreEnv>): StoreConfig {
  return {
    dataDir: resolve(e.SKILLPORT_DATA_DIR),
    databaseUrl: e.SKILLPORT_DATABASE_URL,
    databasePoolSize: e.SKILLPORT_DATABASE_POOL_SIZE,
    redisUrl: e.SKILLPORT_REDIS_URL,
    redisKeyPrefix: e.SKILLPORT_REDIS_KEY_PREFIX,
    redisDown: e.SKILLPORT_REDIS_DOWN,
    redisTimeoutMs: e.SKILLPORT_REDIS_TIMEOUT_MS,
  };
}

/** A setting that does not validate: the variable it is read from, and what is wrong with it. */
export interface ConfigProblem {
  variable: string;
  message: string;
}

/** A configuration that does not validate, every problem named (values never repeated: URLs may hold passwords). */
export class ConfigError extends Error {
  constructor(readonly problems: readonly ConfigProblem[]) {
    super(
      `Invalid configuration: ${problems.map(({ variable, message }) => `${variable}: ${message}`).join("; ")}`,
    );
  }
}

function parseEnv<Schema extends z.ZodType>(schema: Schema, env: NodeJS.ProcessEnv): z.output<Schema> {
  const parsed = safeParseInWords(schema, env);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => ({ variable: issue.path.join("."), message: issue.message })),
    );
  }
  return parsed.data;
}
