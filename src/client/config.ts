import { Agent, type Dispatcher } from "undici";
import { holdsCredentials, meantUrl, namesAnEndpoint, shownBaseUrl } from "./base-url.js";
import { MAX_TIMER_MS } from "./deadline.js";
import { clientError } from "./errors.js";
import type { RetryEvent, SkillportOptions } from "./types.js";

const DEFAULT_BASE_URL = "http://127.0.0.1:8080";
const DEFAULT_MAX_RETRIES = 3;
const DEFAULT_TIMEOUT_MS = 60_000;

/** The client's options with every default applied, checked once when the client is made. */
export interface ClientConfig {
  apiKey: string;
  /** `http(s)://host:port` of the service. */
  origin: string;
  /** The base URL's path, prepended to every request path ("" at the root). */
  pathPrefix: string;
  maxRetries: number;
  /** `SkillportOptions.retryRefusals`: false retries only calls whose answer may have been lost. */
  retryRefusals: boolean;
  timeoutMs: number;
  dispatcher: Dispatcher;
  /** The client made the dispatcher, so `close()` closes it; a caller's stays open. */
  ownsDispatcher: boolean;
  onRetry: ((event: RetryEvent) => void) | undefined;
}

/**
 * Applies the defaults: the key and base URL from `SKILLPORT_API_KEY` and
 * `SKILLPORT_BASE_URL` (interface-spec.md, Authentication 7). A missing key is an error
 * here, before any request could be sent without one.
 */
export function resolveConfig(options: SkillportOptions, env: NodeJS.ProcessEnv = process.env): ClientConfig {
  // A key read from a file, or from a .env written on Windows, keeps its line ending;
  // no key has spaces or line breaks, and undici refused the header with its own error.
  // The types hold these for TypeScript callers; JavaScript's are told here, when the client
  // is made, rather than by a late crash deep in a call (`onRetry` after a first attempt that
  // may have run a skill) or a value that misleads (`timeoutMs: "3000"` added up as text).
  checkType(options.apiKey, "string", "apiKey");
  checkType(options.timeoutMs, "number", "timeoutMs");
  checkType(options.maxRetries, "number", "maxRetries");
  checkType(options.onRetry, "function", "onRetry");
  if (options.dispatcher !== undefined && typeof options.dispatcher?.request !== "function") {
    throw new TypeError("dispatcher must be an undici Dispatcher (an Agent, Pool, ProxyAgent, …)");
  }
  const apiKey = (options.apiKey ?? env.SKILLPORT_API_KEY)?.trim();
  if (!apiKey) {
    throw clientError(
      "missing_api_key",
      "No API key: pass { apiKey } to new Skillport() or set SKILLPORT_API_KEY " +
        "(create a key with `skillport keys create --name NAME --scope full-access`).",
    );
  }
  if (/[^\x21-\x7e]/.test(apiKey)) {
    // The key itself stays out of the message, like every secret.
    const source = options.apiKey !== undefined ? "apiKey" : "SKILLPORT_API_KEY";
    throw new TypeError(`${source} is not an API key: it holds spaces or characters outside printable ASCII`);
  }
  const baseUrl = parseBaseUrl(options.baseUrl, env.SKILLPORT_BASE_URL);
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!Number.isInteger(maxRetries) || maxRetries < 0)
    throw new RangeError("maxRetries must be an integer ≥ 0");
  const retryRefusals = options.retryRefusals ?? true;
  if (typeof retryRefusals !== "boolean") throw new TypeError("retryRefusals must be true or false");
  // Node's timers (undici's too) take at most 2^31 - 1 ms; Infinity passed here failed every call.
  if (!(timeoutMs > 0 && timeoutMs <= MAX_TIMER_MS)) {
    throw new RangeError(`timeoutMs must be > 0 and at most ${MAX_TIMER_MS} (about 24 days)`);
  }
  return {
    apiKey,
    origin: baseUrl.origin,
    pathPrefix: baseUrl.pathname.replace(/\/+$/, ""),
    maxRetries,
    retryRefusals,
    timeoutMs,
    // One keep-alive pool per origin (undici's Agent), reused by every call of this client.
    dispatcher: options.dispatcher ?? new Agent(),
    ownsDispatcher: options.dispatcher === undefined,
    onRetry: options.onRetry,
  };
}

/** Refuses an option given with another type than the one it takes (absent is fine: the default). */
function checkType(value: unknown, type: "string" | "number" | "function", name: string): void {
  if (value !== undefined && typeof value !== type) {
    throw new TypeError(`${name} must be a ${type}, not ${value === null ? "null" : typeof value}`);
  }
}

/** The base URL given (the option, else the variable, else the default), or why it cannot be one. */
function parseBaseUrl(option: string | undefined, variable: string | undefined): URL {
  const [given, source] =
    option !== undefined
      ? [option, "baseUrl"]
      : variable
        ? [variable, "SKILLPORT_BASE_URL"]
        : [DEFAULT_BASE_URL, "baseUrl"];
  let url: URL | undefined;
  try {
    url = new URL(given);
  } catch {
    // Not a URL at all (`127.0.0.1:8080`): said below, as for another scheme.
  }
  // Read as meant, so that one without its scheme (`user:secret@host:8080`) is found too.
  const meant = meantUrl(given);
  if (meant !== undefined && holdsCredentials(meant)) {
    throw new TypeError(
      `${source} must not hold a user name or password: the client authenticates with the API key alone, and would not send them`,
    );
  }
  // The messages repeat what was given, but never what may be a secret in it (a token in the query).
  if (url?.protocol !== "http:" && url?.protocol !== "https:") {
    throw new TypeError(
      `${source} must be an http or https URL such as http://127.0.0.1:8080, not ${shownBaseUrl(given)}`,
    );
  }
  if (namesAnEndpoint(url)) {
    throw new TypeError(
      `${source} must be the server's base URL, such as http://127.0.0.1:8080 (not …/v1 or …/mcp), not ${shownBaseUrl(given)}`,
    );
  }
  return url;
}
