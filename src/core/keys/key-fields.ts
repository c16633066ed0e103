import type { ApiKey } from "./api-key.js";

/**
 * What a key is given when it is created (all but its secret and timestamps), which a roll
 * copies to the new key. The lists below are the one statement of what editing may change:
 * the core's edit input, the store's update, the CLI's options and refusals and the
 * dashboard's words are built from them.
 */
export const KEY_ATTRIBUTES = [
  "name",
  "scope",
  "plan",
  "limits",
  "environment",
  "owner",
  "expiresAt",
] as const satisfies readonly (keyof ApiKey)[];
export type KeyAttribute = (typeof KEY_ATTRIBUTES)[number];

/** What editing a key may change; it keeps its secret. */
export const EDITABLE_KEY_FIELDS = ["name", "plan", "limits"] as const satisfies readonly KeyAttribute[];
export type EditableKeyField = (typeof EDITABLE_KEY_FIELDS)[number];

/** What is fixed when a key is created (a new key changes it), in the order messages name it. */
export const FIXED_KEY_FIELDS = [
  "scope",
  "owner",
  "environment",
  "expiresAt",
] as const satisfies readonly Exclude<KeyAttribute, EditableKeyField>[];

/** Each attribute as a sentence names it. */
const WORD_OF_FIELD: Record<KeyAttribute, string> = {
  name: "name",
  scope: "scope",
  plan: "plan",
  limits: "limits",
  environment: "environment",
  owner: "owner",
  expiresAt: "expiry",
};

/** `scope, owner, environment and expiry`: fields as a sentence names them. */
export function keyFieldsInWords(fields: readonly KeyAttribute[]): string {
  return inWords(fields.map((field) => WORD_OF_FIELD[field]));
}

/** `a, b and c` (or `a, b or c`). */
export function inWords(words: readonly string[], last: "and" | "or" = "and"): string {
  return words.length > 1 ? `${words.slice(0, -1).join(", ")} ${last} ${words.at(-1)}` : words.join("");
}
