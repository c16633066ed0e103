import { z } from "zod";
import type { Logger } from "../logger.js";
import { recordDeclaration } from "./skill-origin.js";

/**
 * What a skill's metadata says about its effects. They become MCP tool annotations and
 * decide where a skill runs (light async I/O on the main thread, the rest isolated).
 * Defined once as a schema: the type, and the skill's description in the API's answers
 * and OpenAPI document (answer-schemas.ts), come from it.
 */
export const SkillAnnotationsSchema = z.object({
  readOnly: z.boolean().describe("Does not change anything outside the execution (no writes, no sends)"),
  destructive: z.boolean().describe("May destroy or overwrite data; meaningful only when readOnly is false"),
  idempotent: z
    .boolean()
    .describe("Calling it twice with the same params has no more effect than calling it once"),
  openWorld: z.boolean().describe("Talks to the world outside skillport (the network)"),
  // Every other skill runs in a worker thread that is stopped when it overruns its
  // timeout or memory (see SkillExecutor).
  lightAsyncIo: z
    .boolean()
    .optional()
    .describe(
      "Spends its time awaiting I/O (the store, the network, timers) with little CPU or memory " +
        "per call, so it runs on the main thread",
    ),
});
export type SkillAnnotations = z.output<typeof SkillAnnotationsSchema>;

/** An example call: it documents the skill and feeds discovery's index. */
export const SkillExampleSchema = z.object({
  query: z.string().describe('A request an agent might phrase, e.g. "what is 2 to the power of 10"'),
  params: z.record(z.string(), z.unknown()).describe("The params POST /v1/execute would take for it"),
});
export type SkillExample = z.output<typeof SkillExampleSchema>;

export interface ProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}

/** A chat-like message kept per owner (`message.send`, `message.list`). */
export interface StoredMessage {
  id: string;
  channel: string;
  text: string;
  createdAt: string;
}

/** Messages of the calling key's owner; other owners' messages are invisible. */
export interface OwnerMessages {
  send(channel: string, text: string): Promise<StoredMessage>;
  list(options: { channel?: string; limit: number; before?: string }): Promise<StoredMessage[]>;
  /** Whether the owner has a message with this id. */
  has(id: string): Promise<boolean>;
}

/** A key-value memory of the calling key's owner. Values are JSON. */
export interface OwnerMemory {
  get(key: string): Promise<{ value: unknown; updatedAt: string } | undefined>;
  /** Stores the value; `replaced` says whether the key had one just before, as the write found it. */
  set(key: string, value: unknown): Promise<{ replaced: boolean }>;
  delete(key: string): Promise<boolean>;
  /** Keys in order, from after `after` when given. */
  list(options: {
    prefix?: string;
    after?: string;
    limit: number;
  }): Promise<{ key: string; updatedAt: string }[]>;
}

/** What a running skill gets besides its params. */
export interface SkillContext {
  /** Fires on timeout or cancellation; a skill must stop soon after. */
  signal: AbortSignal;
  /** Reports progress (becomes SSE `progress` events and MCP progress notifications). */
  progress(update: ProgressUpdate): void;
  logger: Logger;
  executionId: string;
  /** Tenant label of the key that started the execution. */
  owner: string;
  /**
   * The skill's own configuration (from `SKILLPORT_SKILL_CONFIG`), as its `settings`
   * schema parsed it; empty by default.
   */
  config: Readonly<Record<string, unknown>>;
  messages: OwnerMessages;
  memory: OwnerMemory;
}

// biome-ignore lint/suspicious/noExplicitAny: the catalog holds skills of every shape.
type AnyObjectSchema = z.ZodObject<any>;

export interface SkillDefinition<P extends AnyObjectSchema, R extends AnyObjectSchema> {
  /** Stable identifier, dotted lowercase: `message.send`. */
  id: string;
  /** A short human title: "Send a message". */
  title: string;
  /** What it does and when to pick it, written for an agent choosing among many. */
  description: string;
  tags: string[];
  params: P;
  result: R;
  annotations: SkillAnnotations;
  examples: SkillExample[];
  run(params: z.output<P>, ctx: SkillContext): Promise<z.input<R>>;
  /**
   * For a skill that runs isolated (not `lightAsyncIo`): whether THIS call is known to be
   * small and bounded, e.g. plain arithmetic for `math.evaluate`, so it runs on the main
   * thread without the worker round trip. It runs on every call, so it must be fast; it
   * must answer false whenever it is unsure (before the skill's libraries are loaded, on
   * input it cannot judge). A wrong `true` lets one call stall the service.
   */
  isLightCall?(params: z.output<P>): boolean;
  /**
   * The settings an operator may give the skill in `SKILLPORT_SKILL_CONFIG` (a strict
   * object: an unknown or mistyped setting stops start-up instead of being ignored). A
   * skill without it takes none.
   */
  settings?: AnyObjectSchema;
  /**
   * Loads heavy dependencies ahead of the first call. The service calls it in the
   * background after start-up, so start-up stays fast and the first call is not slow.
   */
  warm?(): Promise<void>;
}

/** A skill as the catalog holds it, its types erased. */
export type Skill = SkillDefinition<AnyObjectSchema, AnyObjectSchema>;

/**
 * Declares a skill. The identity function exists for inference: `run` gets its params
 * typed from the zod schema and must return what the result schema accepts. It notes
 * where the skill was declared, for start-up's messages (skill-origin.ts).
 */
export function defineSkill<P extends AnyObjectSchema, R extends AnyObjectSchema>(
  definition: SkillDefinition<P, R>,
): Skill {
  recordDeclaration(definition, defineSkill);
  return definition as unknown as Skill;
}

/**
 * A skill's own failure: bad input the schema could not catch, an upstream refusal.
 * Its message is shown to the caller in the record's `error.message`, so it must be
 * clear and must not contain secrets. Any other exception is reported generically.
 */
export class SkillError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "SkillError";
  }
}
