import { AccessGate } from "./access.js";
import { AdminAuth } from "./admin/admin-auth.js";
import { CatalogService } from "./catalog-service.js";
import { type Clock, systemClock } from "./clock.js";
import {
  createDiscovery,
  type Discovery,
  type ModelProblem,
  SemanticIndex,
  type TextEmbedder,
} from "./discovery/index.js";
import { UsageLearning } from "./discovery/usage-learning.js";
import { type ServiceError, toServiceError } from "./errors.js";
import { ExecutionEvents } from "./execution/events.js";
import { ExecutionQueries } from "./execution/execution-queries.js";
import { ExecutionRunner } from "./execution/execution-runner.js";
import { ExecutionService } from "./execution/execution-service.js";
import { SignalBridge } from "./execution/signal-bridge.js";
import { inlineExecutor, type SkillExecutor } from "./execution/skill-executor.js";
import { KeyService } from "./keys/key-service.js";
import { ConcurrencyGate } from "./limits/concurrency-gate.js";
import { LeasedLimiter } from "./limits/leased-limiter.js";
import type { Logger } from "./logger.js";
import { OutageLog } from "./outage-log.js";
import type { Store } from "./ports.js";
import { type ProcessLoad, type Readiness, readinessOf } from "./readiness.js";
import { Retention } from "./retention.js";
import { SkillRegistry } from "./skills/registry.js";
import type { Skill } from "./skills/skill.js";
import { checkSkillSettings } from "./skills/skill-settings.js";
import { UsageRecorder } from "./usage/usage-recorder.js";
import { UsageService } from "./usage/usage-service.js";

/** The log line of each problem of the embedding model (`SemanticIndex`'s `onError`). */
const MODEL_PROBLEMS: Record<ModelProblem, string> = {
  failed: "semantic discovery unavailable; ranking stays lexical",
  reloading: "the embedding model stopped; loading it again (ranking lexically meanwhile)",
  query: "the embedding model failed a query; it was answered lexically",
};

/** How long after start skills warm up and the embedding model begins to load (see `start`). */
const BACKGROUND_LOAD_DELAY_MS = 1_000;

export interface SkillportOptions {
  store: Store;
  skills: Iterable<Skill>;
  logger: Logger;
  clock?: Clock;
  asyncConcurrency?: number;
  failedAuthPerMinute?: number;
  retentionDays?: number;
  skillConfig?: Record<string, Record<string, unknown>>;
  /** Hybrid discovery with this model (loaded by `start`, in the background); lexical without. */
  embedder?: TextEmbedder;
  /** `SKILLPORT_ADMIN_TOKEN`: the dashboard's sign-in token; one-time links when absent. */
  adminToken?: string;
  /**
   * Learning from use: an execution within this many milliseconds of the same key's
   * discover teaches discovery (query → skill) for the key's owner. Default 5 minutes; 0 turns it off.
   */
  learnWindowMs?: number;
  /** How often request counts are written to the store (default 5 s). */
  usageFlushMs?: number;
  /** Unfinished executions one key may hold at once (429 beyond; default 64). */
  maxConcurrentPerKey?: number;
  /** Unfinished executions this process holds at once (503 beyond; default 1024). */
  maxPendingExecutions?: number;
  /** Where skills run; on the main thread unless an isolating executor is given. */
  executor?: SkillExecutor;
  /** How often the runner beats (see ExecutionRunnerOptions.heartbeatMs). */
  heartbeatMs?: number;
  /** When an async slot is taken back for another owner (see ExecutionRunnerOptions.asyncReclaimAfterMs). */
  asyncReclaimAfterMs?: number;
}

/** Learning from use links an execution to a discover at most this long before it. */
const DEFAULT_LEARN_WINDOW_MS = 5 * 60_000;

/**
 * The core, assembled: what every surface (REST, MCP, dashboard, CLI) calls. Surfaces
 * translate their input into these calls and the answers (or `ServiceError`s) back.
 */
export class Skillport {
  readonly store: Store;
  readonly registry: SkillRegistry;
  /** Learning from use; undefined when turned off. */
  readonly learning: UsageLearning | undefined;
  readonly keys: KeyService;
  readonly access: AccessGate;
  readonly admin: AdminAuth;
  readonly usage: UsageService;
  readonly catalog: CatalogService;
  readonly executions: ExecutionService;
  readonly queries: ExecutionQueries;
  readonly runner: ExecutionRunner;
  readonly events = new ExecutionEvents();
  readonly logger: Logger;
  private readonly discovery: Discovery;
  private readonly executor: SkillExecutor;
  private readonly concurrency: ConcurrencyGate;
  /** Admits from leases of the store's counters (see LeasedLimiter); closed before the store. */
  private readonly limiter: LeasedLimiter;
  private readonly retention: Retention;
  private readonly outageLog: OutageLog;
  /** `stop` was called: the process is not ready (see `readiness`). */
  private stopping = false;
  private closing = false;
  /** The start under way or made, which `stop` waits for (see there). */
  private starting: Promise<void> | undefined;
  private backgroundTimer: NodeJS.Timeout | undefined;
  private readonly usageRecorder: UsageRecorder;
  private readonly usageFlushMs: number;
  /** Present when the store has a signal channel (several processes, PostgreSQL). */
  private readonly bridge: SignalBridge | undefined;
  private readonly embedder: TextEmbedder | undefined;

  constructor(options: SkillportOptions) {
    const clock = options.clock ?? systemClock;
    this.store = options.store;
    this.logger = options.logger;
    this.outageLog = new OutageLog(this.logger, clock);
    const skills = [...options.skills];
    // Checked here, whoever builds the core: a setting that cannot work is an error.
    const skillConfig = checkSkillSettings(skills, options.skillConfig ?? {});
    this.registry = new SkillRegistry(skills);
    this.embedder = options.embedder;
    const semantic =
      options.embedder &&
      new SemanticIndex(options.embedder, this.store.embeddings, (err, what) => {
        // Closing stops the model's thread, which fails a load still under way: not news.
        if (!this.closing) this.logger.warn({ err }, MODEL_PROBLEMS[what]);
      });
    this.discovery = createDiscovery(this.registry, { semantic });
    const learnWindowMs = options.learnWindowMs ?? DEFAULT_LEARN_WINDOW_MS;
    const learning =
      learnWindowMs > 0
        ? new UsageLearning(this.store.learnedQueries, semantic, clock, this.logger, {
            windowMs: learnWindowMs,
          })
        : undefined;
    this.learning = learning;
    this.retention = new Retention({
      store: this.store,
      learning,
      clock,
      logger: this.logger,
      retentionDays: options.retentionDays ?? 30,
    });
    this.usageRecorder = new UsageRecorder(this.store.usage, this.logger);
    this.keys = new KeyService(this.store.keys, clock, this.usageRecorder);
    this.limiter = new LeasedLimiter(this.store.limiter, clock);
    this.usageFlushMs = options.usageFlushMs ?? 5_000;
    this.usage = new UsageService(this.store.usage, this.usageRecorder, clock);
    this.access = new AccessGate(this.keys, this.limiter, clock, this.usageRecorder, {
      failedAuthPerMinute: options.failedAuthPerMinute ?? 30,
    });
    this.admin = new AdminAuth(this.access, clock, { adminToken: options.adminToken });
    this.catalog = new CatalogService(this.registry, this.discovery, this.learning);
    this.executor = options.executor ?? inlineExecutor;
    this.concurrency = new ConcurrencyGate({
      perKey: options.maxConcurrentPerKey ?? 64,
      total: options.maxPendingExecutions ?? 1024,
    });
    this.runner = new ExecutionRunner({
      registry: this.registry,
      store: this.store,
      clock,
      logger: this.logger,
      events: this.events,
      asyncConcurrency: options.asyncConcurrency ?? 16,
      skillConfig,
      executor: this.executor,
      concurrency: this.concurrency,
      heartbeatMs: options.heartbeatMs,
      asyncReclaimAfterMs: options.asyncReclaimAfterMs,
      storeWatch: this.outageLog,
    });
    this.executions = new ExecutionService({
      registry: this.registry,
      store: this.store,
      clock,
      logger: this.logger,
      events: this.events,
      runner: this.runner,
      concurrency: this.concurrency,
      uncharge: (key) => this.access.uncharge(key),
      asShown: (record) => this.queries.asShown(record),
      waitForEnd: (execution, waitMs) => this.queries.waitForEnd(execution, waitMs),
      onExecutionStarted: learning && ((key, skillId) => learning.noteExecution(key, skillId)),
    });
    this.bridge =
      this.store.signals &&
      new SignalBridge({
        signals: this.store.signals,
        events: this.events,
        store: this.store,
        runnerId: this.runner.runnerId,
        cancelLocal: (id) => this.runner.cancelLocal(id),
        logger: this.logger,
        clock,
      });
    this.queries = new ExecutionQueries(
      this.store,
      this.registry,
      this.events,
      this.runner,
      clock,
      this.bridge,
    );
  }

  /**
   * The contract's error for anything a core call threw: every surface answers its errors
   * through this, so that a store outage is `service_unavailable` (with Retry-After) on
   * each of them alike, and anything else unexpected `internal_error` (`toServiceError`).
   * Only the store knows its driver's errors, so it is the store that tells an outage. An
   * outage is logged here (`OutageLog`: a warning with the driver's error, throttled);
   * surfaces log their `internal_error`s with the request.
   */
  readonly errorOf = (err: unknown): ServiceError => {
    const error = toServiceError(err, this.store.isOutage);
    // An outage mapped here, or one the core already answered for (an execution whose
    // outcome the store refused), keeps the driver's error as its cause.
    if (error.code === "service_unavailable" && this.store.isOutage(error.cause))
      this.outageLog.note(error.cause);
    return error;
  };

  /** Starts running executions: takes over what a dead process left, and prunes old records. */
  start(): Promise<void> {
    // Stopped before it started (a signal while the process opened its store): taking over
    // the store's executions now would run them after the stop let this process go.
    if (this.stopping) return Promise.resolve();
    this.starting ??= this.startOnce();
    return this.starting;
  }

  private async startOnce(): Promise<void> {
    await this.runner.start();
    await this.retention.start();
    this.usageRecorder.start(this.usageFlushMs);
    // Skills' libraries load here and the model on its own thread (discovery answers
    // lexically, and says so, meanwhile). Both take CPU, so they begin once the process
    // has had a moment to answer its first requests (an assistant that spawns
    // `skillport mcp` waits for those).
    this.backgroundTimer = setTimeout(() => {
      if (this.closing) return;
      this.warmSkills();
      void this.discovery.start();
    }, BACKGROUND_LOAD_DELAY_MS);
    this.backgroundTimer.unref();
  }

  /**
   * Lets skills that run on this thread (light ones, and isolated ones for their light
   * calls) load heavy dependencies off the path of their first call; workers warm the rest.
   */
  private warmSkills(): void {
    for (const { skill } of this.registry.list()) {
      if (this.executor.isolates(skill) && !skill.isLightCall) continue;
      skill
        .warm?.()
        .catch((err: unknown) => this.logger.warn({ err, skill_id: skill.id }, "skill warm-up failed"));
    }
  }

  /** Stops taking executions; running ones finish, or are interrupted at `deadlineMs`. */
  async stop(deadlineMs: number): Promise<void> {
    this.stopping = true;
    // A start under way ends first (a signal right after launch): stopping while it takes
    // over the store's queued executions would end each one it took interrupted, instead
    // of leaving it queued, and the start would go on to beat and prune after the stop.
    await this.starting?.catch(() => {});
    this.retention.stop();
    clearTimeout(this.backgroundTimer);
    await this.runner.stop(deadlineMs);
    await this.usageRecorder.stop();
  }

  /**
   * Ends the executions still running now, `execution_interrupted`, instead of at the
   * deadline of the stop under way (or of the next one): what a second signal asks for.
   * Returns how many were running.
   */
  interrupt(): number {
    return this.runner.interrupt();
  }

  /** The load this process carries now, read from memory (see `ProcessLoad`): for `/metrics` and readiness. */
  load(): ProcessLoad {
    const { degraded } = this.store.limiter;
    return {
      executions: { ...this.runner.load, ...this.concurrency.usage },
      workers: this.executor.load,
      saturated: this.concurrency.saturated,
      store: this.outageLog.storeUp ? "ok" : "down",
      ...(degraded !== undefined && { redis: degraded ? "down" : "ok" }),
    };
  }

  /**
   * Whether this process can serve (`readinessOf`), for `/readyz`: asks the store, within
   * the store's own deadline, and judges the load as it is once the store has answered.
   */
  async readiness(): Promise<Readiness> {
    const storeOk = await this.store.ping().catch(() => false);
    return readinessOf(storeOk, this.stopping, this.load());
  }

  /** Releases the store; call after `stop` and after the surfaces stopped using the core. */
  async close(): Promise<void> {
    this.closing = true;
    clearTimeout(this.backgroundTimer);
    this.discovery.close();
    await this.embedder?.close();
    await this.usageRecorder.stop();
    await this.learning?.close();
    await this.executor.close();
    this.bridge?.close();
    await this.limiter.close();
    await this.store.close();
  }
}
