import type { StoredMessage } from "../core/skills/skill.js";

/** A `messages` row as both SQL adapters list it (its owner left out: the caller asked by owner). */
export interface MessageRow {
  id: string;
  channel: string;
  text: string;
  created_at: string;
}

/** The message a listed row holds. */
export function fromMessageRow(row: MessageRow): StoredMessage {
  return { id: row.id, channel: row.channel, text: row.text, createdAt: row.created_at };
}
