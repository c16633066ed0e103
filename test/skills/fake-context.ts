import { silentLogger } from "../../src/core/logger.js";
import type {
  OwnerMemory,
  OwnerMessages,
  ProgressUpdate,
  SkillContext,
  StoredMessage,
} from "../../src/core/skills/skill.js";

/** In-memory messages of one owner; `list` is newest first, `before` is an exclusive cursor. */
export class InMemoryMessages implements OwnerMessages {
  readonly stored: StoredMessage[] = [];
  private sequence = 0;

  async send(channel: string, text: string): Promise<StoredMessage> {
    this.sequence += 1;
    const message: StoredMessage = {
      id: `msg_${String(this.sequence).padStart(6, "0")}`,
      channel,
      text,
      createdAt: new Date(Date.UTC(2024, 0, 1, 0, 0, this.sequence)).toISOString(),
    };
    this.stored.push(message);
    return message;
  }

  async list(options: { channel?: string; limit: number; before?: string }): Promise<StoredMessage[]> {
    let newestFirst = [...this.stored].reverse();
    if (options.before !== undefined) {
      const index = newestFirst.findIndex((message) => message.id === options.before);
      newestFirst = index === -1 ? [] : newestFirst.slice(index + 1);
    }
    return newestFirst
      .filter((message) => options.channel === undefined || message.channel === options.channel)
      .slice(0, options.limit);
  }

  async has(id: string): Promise<boolean> {
    return this.stored.some((message) => message.id === id);
  }
}

/** In-memory key-value memory of one owner; values are stored as JSON text, as a real store would. */
export class InMemoryMemory implements OwnerMemory {
  readonly entries = new Map<string, { json: string; updatedAt: string }>();

  async get(key: string): Promise<{ value: unknown; updatedAt: string } | undefined> {
    const entry = this.entries.get(key);
    return entry && { value: JSON.parse(entry.json), updatedAt: entry.updatedAt };
  }

  async set(key: string, value: unknown): Promise<{ replaced: boolean }> {
    const replaced = this.entries.has(key);
    this.entries.set(key, { json: JSON.stringify(value), updatedAt: new Date().toISOString() });
    return { replaced };
  }

  async delete(key: string): Promise<boolean> {
    return this.entries.delete(key);
  }

  async list(options: {
    prefix?: string;
    after?: string;
    limit: number;
  }): Promise<{ key: string; updatedAt: string }[]> {
    return [...this.entries.keys()]
      .filter((key) => options.prefix === undefined || key.startsWith(options.prefix))
      .filter((key) => options.after === undefined || key > options.after)
      .sort()
      .slice(0, options.limit)
      .map((key) => ({ key, updatedAt: this.entries.get(key)?.updatedAt ?? "" }));
  }
}

export interface FakeContext extends SkillContext {
  messages: InMemoryMessages;
  memory: InMemoryMemory;
  /** Every progress update the skill reported, in order. */
  progressUpdates: ProgressUpdate[];
}

/** A `SkillContext` for unit tests: in-memory stores, a recorder for progress, silent logs. */
export function fakeContext(
  overrides: { signal?: AbortSignal; config?: Record<string, unknown>; owner?: string } = {},
): FakeContext {
  const progressUpdates: ProgressUpdate[] = [];
  return {
    signal: overrides.signal ?? new AbortController().signal,
    progress(update) {
      progressUpdates.push(update);
    },
    progressUpdates,
    logger: silentLogger,
    executionId: "exec_test",
    owner: overrides.owner ?? "test-owner",
    config: overrides.config ?? {},
    messages: new InMemoryMessages(),
    memory: new InMemoryMemory(),
  };
}
