import { ServiceError } from "../core/errors.js";

export interface RefreshedOptions<T> {
  /** How long a fetched value is used before it is fetched again. */
  ttlMs: number;
  /** What `tools/list` is answered when the first fetch is refused for the key's rate limit. */
  whileLimited: T;
  /** Called when a value arrives after `whileLimited` was answered in its place. */
  onArrival?: () => void;
}

/** A fetch refused for the key's rate limit, before any value was fetched. */
class Limited {
  constructor(readonly refusal: ServiceError) {}
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
 * Any other failure is thrown: a revoked key lists no tools.
 */
export class Refreshed<T> {
  private known: { value: T; fetchedAt: number } | undefined;
  private asking: Promise<T | Limited> | undefined;
  private standingIn = false;

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
    const answer = await this.ask();
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

  private ask(): Promise<T | Limited> {
    if (this.known && Date.now() - this.known.fetchedAt < this.options.ttlMs) {
      return Promise.resolve(this.known.value);
    }
    // Callers meanwhile share the one request.
    this.asking ??= this.fetch()
      .then(
        (value) => {
          this.known = { value, fetchedAt: Date.now() };
          if (this.standingIn) {
            this.standingIn = false;
            this.options.onArrival?.();
          }
          return value;
        },
        (err: unknown) => {
          if (!(err instanceof ServiceError && err.code === "rate_limit_exceeded")) throw err;
          if (!this.known) return new Limited(err);
          this.known.fetchedAt = Date.now();
          return this.known.value;
        },
      )
      .finally(() => {
        this.asking = undefined;
      });
    return this.asking;
  }
}
