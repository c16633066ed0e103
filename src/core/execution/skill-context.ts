import type { Clock } from "../clock.js";
import { isoTimestamp } from "../clock.js";
import { newId } from "../ids.js";
import type { MemoryStore, MessageStore } from "../ports.js";
import type { OwnerMemory, OwnerMessages } from "../skills/skill.js";

/** The calling owner's messages: a skill can neither see nor write another owner's. */
export function ownerMessages(store: MessageStore, owner: string, clock: Clock): OwnerMessages {
  return {
    async send(channel, text) {
      const message = { id: newId("msg"), channel, text, createdAt: isoTimestamp(clock.now()) };
      await store.insert(owner, message);
      return message;
    },
    list: (options) => store.list(owner, options),
  };
}

/** The calling owner's key-value memory. */
export function ownerMemory(store: MemoryStore, owner: string, clock: Clock): OwnerMemory {
  return {
    get: (key) => store.get(owner, key),
    set: (key, value) => store.set(owner, key, value, isoTimestamp(clock.now())),
    delete: (key) => store.delete(owner, key),
    list: (options) => store.list(owner, options),
  };
}
