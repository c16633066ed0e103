import { AccessGate } from "./access.js";
import { CatalogService } from "./catalog-service.js";
import { type Clock, isoTimestamp, systemClock } from "./clock.js";
import { createDiscovery, type Discovery } from "./discovery/index.js";
import { ExecutionEvents } from "./execution/events.js";
import { ExecutionQueries } from "./execution/execution-queries.js";
import { ExecutionRunner } from "./execution/execution-runner.js";
import { ExecutionService } from "./execution/execution-service.js";
import { SignalBridge } from "./execution/signal-bridge.js";
import { KeyService } from "./keys/key-service.js";
import { LeasedLimiter } from "./limits/leased-limiter.js";
import type { Logger } from "./logger.js";
import type { Store } from "./ports.js";
import { SkillRegistry } from "./skills/registry.js";
import type { Skill } from "./skills/skill.js";

export interface SkillportOptions {
  store: Store;
  skills: Iterable<Skill>;
  logger: Logger;
  clock?: Clock;
  asyncConcurrency?: number;
  failedAuthPerMinute?: number;
  retentionDays?: number;
  skillConfig?: Record<string, Record<string, unknown>>;
  /** How often the runner beats (see ExecutionRunnerOptions.heartbeatMs). */
  heartbeatMs?: number;
}

/**
 * The core, assembled: what every surface (REST, MCP, dashboard, CLI) calls. Surfaces
 * translate their input into these calls and the answers (or `ServiceError`s) back.
 */
export class Skillport {
  readonly store: Store;
  readonly registry: SkillRegistry;
  readonly discovery: Discovery;
  readonly keys: KeyService;
  readonly access: AccessGate;
  readonly catalog: CatalogService;
  readonly executions: ExecutionService;
  readonly queries: ExecutionQueries;
  readonly runner: ExecutionRunner;
  readonly events = new ExecutionEvents();
  readonly logger: Logger;
  private readonly clock: Clock;
  /** Admits from leases of the store's counters (see LeasedLimiter); closed before the store. */
  private readonly limiter: LeasedLimiter;
  private readonly retentionDays: number;
  /** Present when the store has a signal channel (several processes, PostgreSQL). */
  private readonly bridge: SignalBridge | undefined;
  private retentionTimer: NodeJS.Timeout | undefined;

  constructor(options: SkillportOptions) {
    const clock = options.clock ?? systemClock;
    this.clock = clock;
    this.store = options.store;
    this.logger = options.logger;
    this.retentionDays = options.retentionDays ?? 30;
    this.registry = new SkillRegistry(options.skills);
    this.discovery = createDiscovery(this.registry);
    this.keys = new KeyService(this.store.keys, clock);
    this.limiter = new LeasedLimiter(this.store.limiter, clock);
    this.access = new AccessGate(this.keys, this.limiter, clock, {
      failedAuthPerMinute: options.failedAuthPerMinute ?? 30,
    });
    this.catalog = new CatalogService(this.registry, this.discovery);
    this.runner = new ExecutionRunner({
      registry: this.registry,
      store: this.store,
      clock,
      logger: this.logger,
      events: this.events,
      asyncConcurrency: options.asyncConcurrency ?? 16,
      skillConfig: options.skillConfig ?? {},
      heartbeatMs: options.heartbeatMs,
    });
    this.executions = new ExecutionService({
      registry: this.registry,
      store: this.store,
      clock,
      logger: this.logger,
      events: this.events,
      runner: this.runner,
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
      });
    this.queries = new ExecutionQueries(this.store, this.events, this.runner, clock, this.bridge);
  }

  /** Starts running executions: takes over what a dead process left, and prunes old records. */
  async start(): Promise<void> {
    await this.runner.start();
    const prune = () =>
      this.store.executions
        .deleteFinishedBefore(isoTimestamp(this.clock.now() - this.retentionDays * 86_400_000))
        .catch((err: unknown) => this.logger.error({ err }, "could not prune old execution records"));
    await prune();
    this.retentionTimer = setInterval(prune, 3_600_000);
    this.retentionTimer.unref();
    this.warmSkills();
  }

  /** Lets skills load heavy dependencies after start-up, off the path of the first request. */
  private warmSkills(): void {
    setImmediate(() => {
      for (const { skill } of this.registry.list()) {
        skill
          .warm?.()
          .catch((err: unknown) => this.logger.warn({ err, skill_id: skill.id }, "skill warm-up failed"));
      }
    }).unref();
  }

  /** Stops taking executions; running ones finish, or are interrupted at `deadlineMs`. */
  async stop(deadlineMs: number): Promise<void> {
    if (this.retentionTimer) clearInterval(this.retentionTimer);
    await this.runner.stop(deadlineMs);
  }

  /** Releases the store; call after `stop` and after the surfaces stopped using the core. */
  async close(): Promise<void> {
    this.discovery.close();
    this.bridge?.close();
    await this.limiter.close();
    await this.store.close();
  }
}
