import type { Clock } from "../clock.js";
import { isoTimestamp } from "../clock.js";
import { newId } from "../ids.js";
import type { Logger } from "../logger.js";
import type { MemoryStore, MessageStore } from "../ports.js";
import type { OwnerMemory, OwnerMessages, ProgressUpdate, SkillContext } from "../skills/skill.js";
import type { LazyAbortController } from "./lazy-abort-controller.js";

export interface SkillContextParts {
  executionId: string;
  owner: string;
  config: Readonly<Record<string, unknown>>;
  logger: Logger;
  /** Its signal is made only if the skill (or the executor) reads it. */
  controller: LazyAbortController;
  store: { messages: MessageStore; memory: MemoryStore };
  clock: Clock;
  progress(update: ProgressUpdate): void;
}

/**
 * The context a skill's `run` gets. Built once per execution, with the signal and the
 * owner's messages and memory made on first use (most skills use none of them). The
 * getters are the object's own, so a skill that copies the context (`{ ...ctx }`) still
 * gets every member.
 */
export function skillContext(parts: SkillContextParts): SkillContext {
  const { controller, store, owner, clock } = parts;
  let messages: OwnerMessages | undefined;
  let memory: OwnerMemory | undefined;
  return {
    executionId: parts.executionId,
    owner,
    config: parts.config,
    logger: parts.logger,
    progress: parts.progress,
    get signal() {
      return controller.signal;
    },
    get messages() {
      messages ??= ownerMessages(store.messages, owner, clock);
      return messages;
    },
    get memory() {
      memory ??= ownerMemory(store.memory, owner, clock);
      return memory;
    },
  };
}

/** The calling owner's messages: a skill can neither see nor write another owner's. */
function ownerMessages(store: MessageStore, owner: string, clock: Clock): OwnerMessages {
  return {
    async send(channel, text) {
      const message = { id: newId("msg"), channel, text, createdAt: isoTimestamp(clock.now()) };
      await store.insert(owner, message);
      return message;
    },
    list: (options) => store.list(owner, options),
    has: (id) => store.has(owner, id),
  };
}

/** The calling owner's key-value memory. */
function ownerMemory(store: MemoryStore, owner: string, clock: Clock): OwnerMemory {
  return {
    get: (key) => store.get(owner, key),
    set: (key, value) => store.set(owner, key, value, isoTimestamp(clock.now())),
    delete: (key) => store.delete(owner, key),
    list: (options) => store.list(owner, options),
  };
}
