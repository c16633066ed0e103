import type { SkillDetail } from "../core/answer-schemas.js";
import { anySignal } from "../core/any-signal.js";
import type { DiscoverRequest, ExecuteRequest } from "../core/api-schemas.js";
import { toSkillDetail } from "../core/catalog-service.js";
import type { ServiceError } from "../core/errors.js";
import type { ExecutionRecord } from "../core/execution/record.js";
import type { ApiKey, Scope } from "../core/keys/api-key.js";
import type { Skillport } from "../core/skillport.js";
import type { ProgressUpdate } from "../core/skills/skill.js";
import {
  type CountedCall,
  type DiscoverAnswer,
  type ExecuteCall,
  type GetExecutionCall,
  type SkillportBackend,
  waitsForEnd,
} from "./backend.js";

/**
 * The tools answered by the core in this process (`skillport mcp`, and `/mcp` on
 * `skillport serve`): the same gate, limits, execution path and records as `/v1`.
 */
export class EmbeddedBackend implements SkillportBackend {
  private catalog: readonly SkillDetail[] | undefined;

  /**
   * @param caller the key making the calls, authenticated afresh each time so that a
   *   revoked key stops working at once (stdio), or as admitted by the HTTP request.
   * @param waitsEnd ends every wait for an execution's end, answering the record as it
   *   stands without cancelling anything: `/mcp` fires it at shutdown once this process's
   *   executions have ended, as REST long polls end then.
   */
  constructor(
    private readonly skillport: Skillport,
    private readonly caller: () => Promise<ApiKey>,
    private readonly waitsEnd?: AbortSignal,
  ) {}

  async scope(): Promise<Scope> {
    return (await this.caller()).scope;
  }

  async skills(): Promise<readonly SkillDetail[]> {
    this.catalog ??= this.skillport.registry.list().map(toSkillDetail);
    return this.catalog;
  }

  onSkillsChanged(listener: () => void): () => void {
    return this.skillport.registry.onChange(() => {
      this.catalog = undefined;
      listener();
    });
  }

  async discover(request: DiscoverRequest, counted?: CountedCall): Promise<DiscoverAnswer> {
    const { catalog } = this.skillport;
    const answer = await catalog.discover(request, await this.charged(counted));
    // The text POST /v1/discover sends for it, by the same rule, from each summary's kept JSON.
    return { answer, json: catalog.answerJson(answer) };
  }

  async execute(call: ExecuteCall): Promise<ExecutionRecord> {
    const { request, waitMs = 0, idempotencyKey, signal, onProgress, onLog } = call;
    const key = await this.charged(call.counted);
    const { executions, queries } = this.skillport;
    // A call with an idempotency key always starts its execution async, as remote mode
    // does over REST: the key then stands for the skill, params and timeout only, whatever
    // the call waits (`wait_ms`, a task), so a retry that waits otherwise, or arrives while
    // the first still runs, is answered from the first execution in both modes.
    if (waitsForEnd(call) && idempotencyKey === undefined) {
      const sync = await executions.execute(key, executeRequest(request, false), {
        idempotencyKey,
        signal,
        onProgress,
        onLog,
      });
      return sync.record;
    }
    const { record } = await executions.execute(key, executeRequest(request, true), {
      idempotencyKey,
      onProgress,
      onLog,
      // A repeat while the first runs is answered as a waited-for call: the run's record.
      replayRunning: true,
    });
    // Cancelled while waiting: the execution is cancelled. After the answer it runs on.
    const cancel = () => void queries.cancel(key, record.id).catch(() => {});
    signal.addEventListener("abort", cancel, { once: true });
    // Cancelled while the execution was being started: its listener came too late.
    if (signal.aborted) cancel();
    try {
      return await this.waitForEnd(
        key,
        record.id,
        waitsForEnd(call) ? Number.POSITIVE_INFINITY : waitMs,
        signal,
      );
    } finally {
      signal.removeEventListener("abort", cancel);
    }
  }

  async getExecution({
    id,
    waitMs,
    signal,
    onProgress,
    counted,
  }: GetExecutionCall): Promise<ExecutionRecord> {
    return this.waitForEnd(await this.charged(counted), id, waitMs, signal, onProgress);
  }

  async readExecution(id: string): Promise<ExecutionRecord> {
    return this.skillport.queries.get(await this.caller(), id);
  }

  async cancelExecution(id: string): Promise<ExecutionRecord> {
    return this.skillport.queries.cancel(await this.caller(), id);
  }

  async countRefusedCall(counted?: CountedCall): Promise<void> {
    await this.charged(counted);
  }

  errorOf(err: unknown): ServiceError {
    return this.skillport.errorOf(err);
  }

  /**
   * The record once terminal, or as it stands when the wait, the call or `waitsEnd` ends;
   * `onProgress` hears the run's progress meanwhile (a poll's; `execute` has its own).
   */
  private async waitForEnd(
    key: ApiKey,
    id: string,
    waitMs: number,
    signal: AbortSignal,
    onProgress?: (update: ProgressUpdate) => void,
  ) {
    const waiting = anySignal(this.waitsEnd ? [signal, this.waitsEnd] : [signal]);
    try {
      return await this.skillport.queries.get(key, id, waitMs, { signal: waiting.signal, onProgress });
    } finally {
      waiting.dispose();
    }
  }

  /**
   * The caller's key, with this call counted against its limits (contract.md: `tools/call`
   * counts), unless it was `counted` already.
   */
  private async charged(counted?: CountedCall): Promise<ApiKey> {
    const admission = counted ?? (await this.skillport.access.charge(await this.caller()));
    if (!admission.admitted) throw admission.error;
    return admission.key;
  }
}

/**
 * The call's request as the core takes it, made member by member: on Node 20, V8 copies
 * `{ ...request, async }` (a member the request lacks) on a slow path that costs half a
 * microsecond, every tool call.
 */
function executeRequest(request: ExecuteCall["request"], async: boolean): ExecuteRequest {
  return { skill_id: request.skill_id, params: request.params, timeout_ms: request.timeout_ms, async };
}
