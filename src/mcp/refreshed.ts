import { ServiceError } from "../core/errors.js";

export interface RefreshedOptions<T> {
  /** How long a fetched value is used before it is fetched again. */
  ttlMs: number;
  /** What `tools/list` is answered when the first fetch is refused for the key's rate limit. */
  whileLimited: T;
  /** Called when a value arrives after `whileLimited` was answered in its place. */
  onArrival?: () => void;
  /** Called when a fetch fails for an outage (`isOutage`) and the value fetched last is kept. */
  onOutage?: (err: ServiceError) => void;
  /** Called when a value arrives after `onOutage` was called. */
  onRecovery?: () => void;
  /**
   * What a caller is thrown when no value is known and the fetch has not answered within
   * `waitedMs` (the server hangs): the outage a refused connection would be.
   */
  noAnswer: (waitedMs: number) => ServiceError;
}

/**
 * How long a caller waits for a value fetched again: past it, the value known answers (or,
 * with none known yet, `noAnswer` is thrown) and the fetch goes on for the next caller. A
 * healthy server lists its catalog in milliseconds; one that hangs (a stopped process, a
 * lost network) would hold `tools/list` for the client's whole attempt timeout (a minute),
 * past the MCP client's own request timeout, and the assistant would see no tools and no
 * reason. Only a start (`getAtStart`: nothing is served before it ends) waits for the
 * answer, so that a slow server is no failed start.
 */
const REFRESH_WAIT_MS = 2_000;
/**
 * After an outage, the value fetched last is used this long before it is fetched again,
 * twice as long after each outage in a row (up to `ttlMs`): a server restarting is asked
 * again within seconds, one that stays down is not asked on every `tools/list`.
 */
const FIRST_RETRY_AFTER_OUTAGE_MS = 5_000;

/**
 * Whether a failure says the server could not answer now rather than anything about the
 * key: a 5xx, or no answer (`remote` turns a connection error, a timeout or an answer it
 * cannot read into `service_unavailable`). A 401 or 403 is an answer about the key.
 */
export function isOutage(err: unknown): err is ServiceError {
  return err instanceof ServiceError && err.status >= 500;
}

/** A fetch refused for the key's rate limit, before any value was fetched. */
class Limited {
  constructor(readonly refusal: ServiceError) {}
}

/** The fetch under way: its answer, and a promise resolving once callers stop waiting for it. */
interface Refresh<T> {
  answer: Promise<T | Limited>;
  waited: Promise<void>;
}

/**
 * A value fetched over REST for the MCP tools (the catalog, the key's scope), fetched again
 * once `ttlMs` has passed. `tools/list` does not count against the key's limits and
 * answers while the key is over them (README, "Use it from an assistant"), so a fetch
 * refused for the rate limit is no answer: the value fetched last goes on being used for
 * another `ttlMs`, and before any was fetched `get` answers `whileLimited` (what
 * `tools/list` shows) and `fetched` throws the refusal (a call cannot be resolved against
 * a value not known yet, and is refused for the limit, as it would be in embedded mode);
 * the next call of either asks again (a refused request does not count against the key).
 * An outage (`isOutage`: the server restarting, down or failing) is no answer either: the
 * value fetched last goes on being used until the next ask after a backoff, so that an
 * assistant keeps its tools while the server restarts; before any value was fetched, it
 * is thrown, as `noAnswer` is when a fetch does not answer in time. Any other failure is
 * thrown: a revoked key lists no tools.
 */
export class Refreshed<T> {
  private known: { value: T; staleAtMs: number } | undefined;
  private refresh: Refresh<T> | undefined;
  private standingIn = false;
  private outagesInARow = 0;

  constructor(
    private readonly fetch: () => Promise<T>,
    private readonly options: RefreshedOptions<T>,
  ) {}

  /** The value fetched last; undefined while none could be (only `whileLimited` was answered). */
  get lastFetched(): T | undefined {
    return this.known?.value;
  }

  /** The value, or `whileLimited` in its place: for `tools/list`. */
  async get(): Promise<T> {
    return this.standInIfLimited(await this.ask());
  }

  /** As `get`, waiting for the fetch however long it takes: for a start, which serves nothing before. */
  async getAtStart(): Promise<T> {
    return this.standInIfLimited(await this.ask({ patient: true }));
  }

  private standInIfLimited(answer: T | Limited): T {
    if (!(answer instanceof Limited)) return answer;
    this.standingIn = true;
    return this.options.whileLimited;
  }

  /** The value; before one could be fetched, the rate-limit refusal thrown: for a call. */
  async fetched(): Promise<T> {
    const answer = await this.ask();
    if (answer instanceof Limited) throw answer.refusal;
    return answer;
  }

  private async ask({ patient = false } = {}): Promise<T | Limited> {
    const { known } = this;
    if (known && Date.now() < known.staleAtMs) return known.value;
    // Callers meanwhile share the one request.
    this.refresh ??= this.start();
    const { answer, waited } = this.refresh;
    if (patient) return answer;
    const late = Symbol("late");
    const first = await Promise.race([answer, waited.then(() => late)]);
    if (first !== late) return first as T | Limited;
    if (known) return known.value;
    throw this.options.noAnswer(REFRESH_WAIT_MS);
  }

  private start(): Refresh<T> {
    const answer = this.fetch().then(
      (value) => this.arrived(value),
      (err: unknown) => this.failed(err),
    );
    let timer: ReturnType<typeof setTimeout> | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, REFRESH_WAIT_MS);
    });
    // Its failure is thrown to the callers still waiting; once none is, it is no one's.
    answer.catch(() => {});
    void answer
      .finally(() => {
        clearTimeout(timer);
        this.refresh = undefined;
      })
      .catch(() => {});
    return { answer, waited };
  }

  private arrived(value: T): T {
    this.known = { value, staleAtMs: Date.now() + this.options.ttlMs };
    if (this.outagesInARow > 0) {
      this.outagesInARow = 0;
      this.options.onRecovery?.();
    }
    if (this.standingIn) {
      this.standingIn = false;
      this.options.onArrival?.();
    }
    return value;
  }

  private failed(err: unknown): T | Limited {
    const { known } = this;
    if (err instanceof ServiceError && err.code === "rate_limit_exceeded") {
      if (!known) return new Limited(err);
      known.staleAtMs = Date.now() + this.options.ttlMs;
      return known.value;
    }
    if (!known || !isOutage(err)) throw err;
    this.outagesInARow++;
    if (this.outagesInARow === 1) this.options.onOutage?.(err);
    const backoffMs = FIRST_RETRY_AFTER_OUTAGE_MS * 2 ** (this.outagesInARow - 1);
    known.staleAtMs = Date.now() + Math.min(backoffMs, this.options.ttlMs);
    return known.value;
  }
}
