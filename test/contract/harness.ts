import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { connect, createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect } from "vitest";

/**
 * Black-box harness: the REAL built server (the package's `bin`: `skillport serve`) as a child
 * process on 127.0.0.1, a fresh temporary data dir, keys made by the real CLI, HTTP over
 * real sockets. `npm test` builds before vitest runs; run `npm run build` first by hand.
 */

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
/** The repository's package.json: what `npm pack` ships and what an install runs. */
export const PACKAGE_JSON = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as {
  version: string;
  bin: { skillport: string };
};
/** The CLI as installed: the package's `bin` (the bundle in dist/cli, see scripts/bundle-cli.mjs). */
export const CLI_PATH = join(REPO_ROOT, PACKAGE_JSON.bin.skillport);

export type Json = Record<string, unknown>;

export interface ErrorDetail {
  path: string;
  message: string;
}

export interface ErrorBody {
  error: {
    code: string;
    message: string;
    request_id: string;
    details?: ErrorDetail[];
    retry_after?: number;
  };
}

export interface ExecutionRecord {
  id: string;
  skill_id: string;
  status: "queued" | "running" | "completed" | "failed" | "timed_out" | "cancelled";
  success: boolean;
  error: { code: string; message: string } | null;
  latency_ms: number | null;
  result: Json | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed JSON body, or undefined when the body is not JSON. */
  body: unknown;
}

/** The body of a response, typed by the caller (the tests assert its shape). */
export function bodyOf<T>(res: ApiResponse): T {
  return res.body as T;
}

export interface RequestOptions {
  /** The API key secret, sent as `Authorization: Bearer <key>`. */
  key?: string;
  /** A JSON body (sent with `Content-Type: application/json`). */
  json?: unknown;
  /** A raw body, sent as is with `contentType` (or fetch's default for strings). */
  rawBody?: string | Uint8Array;
  contentType?: string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** "manual" answers a redirect itself instead of following it (default "follow"). */
  redirect?: "follow" | "manual";
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export type Scope = "read-only" | "full-access";
export type Plan = "free" | "pro" | "enterprise";

export interface KeyOptions {
  name?: string;
  scope?: Scope;
  plan?: Plan;
  limitMinute?: number;
  limitDay?: number;
  owner?: string;
  env?: "production" | "staging" | "development";
  expiresAt?: string;
}

export interface CreatedKey {
  id: string;
  name: string;
  scope: Scope;
  plan: Plan;
  owner: string;
  environment: string;
  secret: string;
}

/** Runs the real CLI (`skillport ARGS`) and collects its output. */
export function runCli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolvePromise) => {
    execFile(
      process.execPath,
      [CLI_PATH, ...args],
      { env: { ...process.env, ...env }, timeout: 30_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === "number" ? err.code : 1) : 0;
        resolvePromise({ code, stdout, stderr });
      },
    );
  });
}

/**
 * Every secret this test process created. Issue 7: no server log may contain one, so
 * each server's whole log is searched for all of them when it stops (`stop()` throws).
 */
const createdSecrets = new Set<string>();

/** The secrets of `createdSecrets` that appear in `logs`, whole or by their random part. */
export function leakedSecrets(logs: string): string[] {
  return [...createdSecrets].filter((secret) => logs.includes(secret) || logs.includes(secret.slice(-24)));
}

/**
 * `skillport keys create ... --json` on `dataDir` (or on the store `env` names); generous
 * limits unless told otherwise.
 */
export async function createKey(
  dataDir: string,
  options: KeyOptions = {},
  env: Record<string, string> = {},
): Promise<CreatedKey> {
  const args = [
    "keys",
    "create",
    "--name",
    options.name ?? "contract-test",
    "--scope",
    options.scope ?? "full-access",
    "--json",
    "--data-dir",
    dataDir,
  ];
  if (options.plan) args.push("--plan", options.plan);
  if (options.limitMinute !== undefined) args.push("--limit-minute", String(options.limitMinute));
  if (options.limitDay !== undefined) args.push("--limit-day", String(options.limitDay));
  if (options.owner) args.push("--owner", options.owner);
  if (options.env) args.push("--env", options.env);
  if (options.expiresAt) args.push("--expires-at", options.expiresAt);
  const result = await runCli(args, env);
  if (result.code !== 0) {
    throw new Error(`keys create failed (${result.code}): ${result.stderr}${result.stdout}`);
  }
  const created = JSON.parse(result.stdout) as CreatedKey;
  if (typeof created.secret !== "string" || typeof created.id !== "string") {
    throw new Error(`keys create --json printed no id/secret: ${result.stdout}`);
  }
  createdSecrets.add(created.secret);
  return created;
}

/**
 * A key that rate limits will not get in the way of: tests that are not about limits
 * use it so that their request count never matters.
 */
export function createRoomyKey(
  dataDir: string,
  options: KeyOptions = {},
  env: Record<string, string> = {},
): Promise<CreatedKey> {
  return createKey(
    dataDir,
    { plan: "enterprise", limitMinute: 100_000, limitDay: 1_000_000, ...options },
    env,
  );
}

/** `skillport keys revoke ID` in a separate process. */
export async function revokeKey(
  dataDir: string,
  id: string,
  env: Record<string, string> = {},
): Promise<void> {
  const result = await runCli(["keys", "revoke", id, "--data-dir", dataDir], env);
  if (result.code !== 0) throw new Error(`keys revoke failed (${result.code}): ${result.stderr}`);
}

/** A port that was free a moment ago (bind 127.0.0.1:0, read it, close). */
export function freePort(): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const server = createServer();
    server.unref();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      if (address === null || typeof address === "string") {
        server.close();
        reject(new Error("no port"));
        return;
      }
      server.close(() => resolvePromise(address.port));
    });
  });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolvePromise) => setTimeout(resolvePromise, ms));
}

/** Seconds left in the current UTC minute (fixed windows are aligned to the clock). */
export function secondsLeftInMinute(nowMs = Date.now()): number {
  return 60 - ((nowMs / 1000) % 60);
}

/**
 * Waits for the next minute when fewer than `seconds` remain in this one, so that a test
 * counting requests in the minute window cannot straddle a window boundary.
 */
export async function awayFromMinuteBoundary(seconds: number): Promise<void> {
  const left = secondsLeftInMinute();
  if (left < seconds) await sleep(left * 1000 + 300);
}

/** Unix seconds of the next UTC midnight. */
export function nextUtcMidnightSeconds(nowMs = Date.now()): number {
  return Math.ceil(nowMs / 86_400_000) * 86_400;
}

export interface TestServer {
  readonly baseUrl: string;
  readonly dataDir: string;
  readonly child: ChildProcess;
  /** Everything the server wrote to stdout and stderr so far. */
  logs(): string;
  request(method: string, path: string, options?: RequestOptions): Promise<ApiResponse>;
  createKey(options?: KeyOptions): Promise<CreatedKey>;
  /** An enterprise key with limits high enough never to matter. */
  createRoomyKey(options?: KeyOptions): Promise<CreatedKey>;
  revokeKey(id: string): Promise<void>;
  /**
   * SIGTERM, waits for the exit (SIGKILL after a while), removes its own data dir; the exit
   * code. Throws when the server's logs contain a secret this test process created.
   */
  stop(): Promise<number | null>;
  /** Resolves with the exit code when the process ends. */
  readonly exited: Promise<number | null>;
}

export interface StartOptions {
  /** Extra `SKILLPORT_*` variables; `undefined` removes one (e.g. to get its default). */
  env?: Record<string, string | undefined>;
  /** An existing data dir (e.g. a restart); it is left in place on `stop`. */
  dataDir?: string;
  /** The port to listen on (e.g. a restart that clients find at the same address); else a free one. */
  port?: number;
  /** A file descriptor to give the server as its stdout (its log) instead of a pipe; `logs()` then holds stderr only. */
  stdout?: number;
  /** The same for its stderr. */
  stderr?: number;
}

/**
 * Starts `skillport serve` on a free port with a fresh data dir and waits for
 * `/healthz`. Unless a test sets it, failed authentications per address are not limited
 * in practice (only the address-limit test wants the default of 30).
 */
export async function startServer(options: StartOptions = {}): Promise<TestServer> {
  const ownsDataDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), "skillport-test-")));
  try {
    // Another process may take the port between the probe and the bind: try again.
    for (let attempt = 1; ; attempt++) {
      try {
        return await launch(dataDir, ownsDataDir, options);
      } catch (err) {
        if (attempt >= 3) throw err;
      }
    }
  } catch (err) {
    if (ownsDataDir) await rm(dataDir, { recursive: true, force: true });
    throw err;
  }
}

/**
 * One server for a whole suite: started before its tests, stopped after them, and the
 * suite fails if the server logged an error meanwhile. Call it in a `describe` body; the
 * getter returns the server once the suite has started.
 */
export function serverForSuite(options: StartOptions = {}): () => TestServer {
  let server: TestServer | undefined;
  beforeAll(async () => {
    server = await startServer(options);
  });
  afterAll(() => stopExpectingNoErrors(server));
  return () => {
    if (!server) throw new Error("the suite's server has not started");
    return server;
  };
}

/**
 * Stops `server` (when it started) and fails the suite if the server logged an error
 * meanwhile: a suite's `afterAll`.
 */
export async function stopExpectingNoErrors(server: TestServer | undefined): Promise<void> {
  const errors = server ? serverErrors(server) : [];
  await server?.stop();
  expect(errors).toEqual([]);
}

/** Servers still running; killed if the test process exits without stopping them. */
const liveChildren = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of liveChildren) child.kill("SIGKILL");
});

async function launch(dataDir: string, ownsDataDir: boolean, options: StartOptions): Promise<TestServer> {
  if (!existsSync(CLI_PATH)) throw new Error(`${CLI_PATH} is missing: run \`npm run build\` first`);
  const port = options.port ?? (await freePort());
  const baseUrl = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [CLI_PATH, "serve", "--data-dir", dataDir], {
    env: {
      ...process.env,
      SKILLPORT_PORT: String(port),
      SKILLPORT_HOST: "127.0.0.1",
      // Every request line is written, so the search for leaked secrets sees everything.
      SKILLPORT_LOG_LEVEL: "info",
      SKILLPORT_FAILED_AUTH_PER_MINUTE: "1000000",
      // The model costs every test server a thread and ~250 MB; discover-hybrid.test.ts covers it.
      SKILLPORT_DISCOVERY_MODE: "lexical",
      ...options.env,
    },
    stdio: ["ignore", options.stdout ?? "pipe", options.stderr ?? "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString("utf8");
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString("utf8");
  });
  liveChildren.add(child);
  let exitCode: number | null | undefined;
  let exitSignal: NodeJS.Signals | null = null;
  const exited = new Promise<number | null>((resolvePromise) => {
    child.once("exit", (code, signal) => {
      liveChildren.delete(child);
      exitCode = code;
      exitSignal = signal;
      resolvePromise(code);
    });
  });
  /**
   * A request that failed because the server is gone says so, with how it ended and its
   * last output: "fetch failed" alone does not tell a crash from a kill by something else.
   */
  const request: TestServer["request"] = async (method, path, requestOptions) => {
    try {
      return await apiRequest(baseUrl, method, path, requestOptions);
    } catch (err) {
      // The socket can fail a moment before the exit is reported.
      if (exitCode === undefined) await Promise.race([exited, sleep(500)]);
      if (exitCode === undefined) throw err;
      throw new Error(
        `the server had exited (code ${exitCode}, signal ${exitSignal}); its last output:\n${output.slice(-4000)}`,
        { cause: err },
      );
    }
  };

  const deadline = Date.now() + 30_000;
  for (;;) {
    if (exitCode !== undefined)
      throw new Error(`server exited (${exitCode}) before it was healthy:\n${output}`);
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`server not healthy within 30 s:\n${output}`);
    }
    try {
      const res = await fetch(`${baseUrl}/healthz`, { signal: AbortSignal.timeout(2_000) });
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }

  let stopped: Promise<number | null> | undefined;
  return {
    baseUrl,
    dataDir,
    child,
    exited,
    logs: () => output,
    request,
    createKey: (keyOptions) => createKey(dataDir, keyOptions, storeEnv(options)),
    createRoomyKey: (keyOptions) => createRoomyKey(dataDir, keyOptions, storeEnv(options)),
    revokeKey: (id) => revokeKey(dataDir, id, storeEnv(options)),
    stop() {
      stopped ??= (async () => {
        if (exitCode === undefined) {
          child.kill("SIGTERM");
          const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
          await exited;
          clearTimeout(timer);
        }
        if (ownsDataDir) await rm(dataDir, { recursive: true, force: true });
        const leaked = leakedSecrets(output);
        if (leaked.length > 0) {
          throw new Error(
            `the server's logs contain ${leaked.length} API key secret(s) created by the tests`,
          );
        }
        return exitCode ?? null;
      })();
      return stopped;
    },
  };
}

/** The variables that name the server's store, for CLI commands that must use the same one. */
function storeEnv(options: StartOptions): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ["SKILLPORT_DATABASE_URL", "SKILLPORT_REDIS_URL", "SKILLPORT_REDIS_KEY_PREFIX"]) {
    const value = options.env?.[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/** One HTTP request; the body is read in full and parsed when it is JSON. */
export async function apiRequest(
  baseUrl: string,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
  let body: string | Uint8Array | undefined;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers["content-type"] = options.contentType ?? "application/json";
  } else if (options.rawBody !== undefined) {
    body = options.rawBody;
    if (options.contentType !== undefined) headers["content-type"] = options.contentType;
  }
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers,
    body,
    redirect: options.redirect ?? "follow",
    signal: options.signal ?? AbortSignal.timeout(60_000),
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text === "" ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, text, body: parsed };
}

/** A signed-in dashboard session's cookie (`name=value`), signed in with `adminToken`. */
export async function dashboardSession(baseUrl: string, adminToken: string): Promise<string> {
  const page = await apiRequest(baseUrl, "GET", "/dashboard/sign-in");
  const formCookie = page.headers.getSetCookie().find((c) => c.startsWith("skillport_sign_in="));
  const field = /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? "";
  const signedIn = await apiRequest(baseUrl, "POST", "/dashboard/sign-in", {
    rawBody: `_csrf=${field}&token=${adminToken}`,
    contentType: "application/x-www-form-urlencoded",
    headers: { cookie: formCookie?.split(";")[0] ?? "" },
    redirect: "manual",
  });
  const session = signedIn.headers.getSetCookie().find((c) => c.startsWith("skillport_session="));
  return session?.split(";")[0] ?? "";
}

/** Polls `check` until it returns a value (not undefined) or `timeoutMs` passes. */
export async function eventually<T>(
  check: () => Promise<T | undefined>,
  timeoutMs = 10_000,
  intervalMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(intervalMs);
  }
}

const ISO_MS_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** ISO 8601 UTC with milliseconds and `Z` (contract.md, "Execution record"). */
export function expectIsoTimestamp(value: unknown): void {
  expect(value).toMatch(ISO_MS_UTC);
  expect(Number.isNaN(Date.parse(String(value)))).toBe(false);
}

/** Text that betrays internals: stack frames, file paths, framework error codes. */
const INTERNAL_TEXT = [
  /\bat .+:\d+:\d+/,
  /node_modules/,
  /\/(src|dist|skills)\//,
  /\.(ts|js):\d+/,
  /\bFST_[A-Z_]+/,
  /\b(TypeError|ReferenceError|SyntaxError|RangeError)\b/,
  /SQLITE_/,
  /undefined is not/,
];

/**
 * The contract's error envelope: the status, `error.code`, a human message free of
 * internals, and `error.request_id` equal to the `X-Request-Id` header.
 */
export function expectError(res: ApiResponse, status: number, code: string): ErrorBody["error"] {
  const context = `${res.status} ${res.text}`;
  expect(res.status, context).toBe(status);
  expect(res.headers.get("content-type"), context).toMatch(/^application\/json/);
  const { error } = bodyOf<ErrorBody>(res);
  expect(error, context).toBeTypeOf("object");
  expect(error.code, context).toBe(code);
  expect(error.message, context).toBeTypeOf("string");
  expect(error.message.length, context).toBeGreaterThan(0);
  for (const pattern of INTERNAL_TEXT) expect(error.message, context).not.toMatch(pattern);
  expect(error.request_id, context).toBeTypeOf("string");
  expect(error.request_id.length, context).toBeGreaterThan(0);
  expect(res.headers.get("x-request-id"), context).toBe(error.request_id);
  if (status === 401) expect(res.headers.get("www-authenticate"), context).toMatch(/^Bearer\b/);
  return error;
}

/** Validation errors carry `details`: a non-empty array of `{path, message}` strings. */
export function expectDetails(error: ErrorBody["error"]): ErrorDetail[] {
  const details = error.details;
  expect(Array.isArray(details), JSON.stringify(error)).toBe(true);
  const list = details ?? [];
  expect(list.length).toBeGreaterThan(0);
  for (const detail of list) {
    expect(detail.path).toBeTypeOf("string");
    expect(detail.message).toBeTypeOf("string");
    expect(detail.message.length).toBeGreaterThan(0);
  }
  return list;
}

export interface LimitHeaders {
  limit: number;
  remaining: number;
  reset: number;
  window: number;
}

/** The four X-RateLimit-* headers, each asserted to be an integer. */
export function limitHeaders(res: ApiResponse): LimitHeaders {
  const read = (name: string) => {
    const value = res.headers.get(name);
    expect(value, `${name} on ${res.status} ${res.text}`).toMatch(/^\d+$/);
    return Number(value);
  };
  return {
    limit: read("x-ratelimit-limit"),
    remaining: read("x-ratelimit-remaining"),
    reset: read("x-ratelimit-reset"),
    window: read("x-ratelimit-window"),
  };
}

/**
 * The IETF draft `RateLimit` field, e.g. `"minute";r=59;t=41, "day";r=999;t=52000`,
 * as a map from policy name to remaining and seconds left.
 */
export function parseRateLimitField(value: string | null): Map<string, { r: number; t: number }> {
  const out = new Map<string, { r: number; t: number }>();
  for (const item of (value ?? "").split(",")) {
    const match = /^\s*"([^"]+)"\s*;(.*)$/.exec(item);
    if (!match) continue;
    const [, name = "", rest = ""] = match;
    const params = new Map(
      rest.split(";").map((p) => {
        const [k = "", v = ""] = p.trim().split("=");
        return [k, v] as const;
      }),
    );
    out.set(name, { r: Number(params.get("r")), t: Number(params.get("t")) });
  }
  return out;
}

/** Reads a Server-Sent Events stream to its end: the events in order. */
export async function readEventStream(
  baseUrl: string,
  path: string,
  key: string,
  timeoutMs = 30_000,
): Promise<{ status: number; headers: Headers; events: { event: string; data: string }[] }> {
  const res = await fetch(`${baseUrl}${path}`, {
    headers: { authorization: `Bearer ${key}`, accept: "text/event-stream" },
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  const events: { event: string; data: string }[] = [];
  for (const block of text.split(/\n\n/)) {
    let event = "message";
    const data: string[] = [];
    for (const line of block.split("\n")) {
      if (line.startsWith("event:")) event = line.slice(6).trim();
      else if (line.startsWith("data:")) data.push(line.slice(5).trimStart());
    }
    if (data.length > 0) events.push({ event, data: data.join("\n") });
  }
  return { status: res.status, headers: res.headers, events };
}

/** The exit code if the process ends within `ms`, else "still running". */
export function exitCodeWithin(server: TestServer, ms: number): Promise<number | null | "still running"> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"still running">((resolvePromise) => {
    timer = setTimeout(() => resolvePromise("still running"), ms);
  });
  return Promise.race([server.exited, late]).finally(() => clearTimeout(timer));
}

export interface RawResponse extends ApiResponse {
  /** The status line and header lines, as received. */
  head: string;
}

/** Parses an HTTP/1.1 response received over a raw socket (chunked bodies decoded). */
export function parseRawResponse(received: string): RawResponse {
  const split = received.indexOf("\r\n\r\n");
  if (split < 0) throw new Error(`no HTTP answer: ${JSON.stringify(received.slice(0, 200))}`);
  const head = received.slice(0, split);
  let text = received.slice(split + 4);
  const headers = new Headers();
  for (const line of head.split("\r\n").slice(1)) {
    const colon = line.indexOf(":");
    if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  if (/chunked/i.test(headers.get("transfer-encoding") ?? "")) {
    let rest = text;
    text = "";
    for (;;) {
      const lineEnd = rest.indexOf("\r\n");
      const size = Number.parseInt(rest.slice(0, lineEnd), 16);
      if (!size) break;
      text += rest.slice(lineEnd + 2, lineEnd + 2 + size);
      rest = rest.slice(lineEnd + 2 + size + 2);
    }
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: Number(head.split(" ")[1]), headers, text, body, head };
}

/** A raw connection to `server`, for a request sent in parts: what it received, once it closed. */
export interface RawConnection {
  socket: Socket;
  /** The host and port, for a request's Host header. */
  host: string;
  /** Resolves with the answer once the server closed the connection. */
  answer: Promise<RawResponse>;
}

/** Opens a raw connection to `server` (resolved once connected), to write a request by hand. */
export async function openRawConnection(server: TestServer): Promise<RawConnection> {
  const { hostname, port } = new URL(server.baseUrl);
  const socket = connect(Number(port), hostname);
  let received = "";
  socket.setEncoding("utf8");
  socket.on("data", (data: string) => {
    received += data;
  });
  const answer = new Promise<RawResponse>((resolvePromise, reject) => {
    socket.on("close", () => {
      try {
        resolvePromise(parseRawResponse(received));
      } catch (err) {
        reject(err);
      }
    });
  });
  await new Promise((resolvePromise) => socket.on("connect", resolvePromise));
  return { socket, host: `${hostname}:${port}`, answer };
}

/**
 * Sends `requestText` (a whole HTTP/1.1 request, e.g. with an absolute-form target that
 * fetch cannot send) over a raw socket and parses the answer; the request should ask
 * for `Connection: close`.
 */
export function rawHttp(server: TestServer, requestText: string): Promise<RawResponse> {
  const { hostname, port } = new URL(server.baseUrl);
  return new Promise((resolvePromise, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(requestText));
    let received = "";
    socket.setEncoding("utf8");
    socket.setTimeout(30_000, () => socket.destroy());
    socket.on("data", (data: string) => {
      received += data;
    });
    socket.on("error", reject);
    socket.on("close", () => {
      try {
        resolvePromise(parseRawResponse(received));
      } catch (err) {
        reject(err);
      }
    });
  });
}

/**
 * The server's log lines at error level or above (pino: 50 error, 60 fatal). A contract
 * run should produce none: each would be a 500 or a failure nobody answered for.
 */
export function serverErrors(server: TestServer): string[] {
  return server
    .logs()
    .split("\n")
    .filter((line) => /"level":\s*(50|60)\b/.test(line));
}
