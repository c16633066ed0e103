/**
 * Held-out set for the memory skills (session 26): plainly worded requests to remember,
 * recall, forget or list the user's own facts, many of them carrying the user's data (an
 * email address, a phone number, a URL, a date) the way people type it, and near-misses
 * that carry the same kinds of data but belong to another skill. Written and committed
 * before the change it measures, and not tuned on (the development sets are
 * recall-queries.ts, memory-queries.ts, paraphrase-queries.ts, audit-queries.ts and
 * obvious-queries.ts).
 */

/** Requests that only save or read: none of them may rank a skill that deletes first. */
export const SAVE_OR_READ_HELDOUT_S26 = {
  "memory.set": [
    "remember my email is alice@example.org",
    "save my phone number: +1 415 555 0199",
    "my work email is j.doe@acme.io, keep that for later",
    "please remember that my birthday is 1990-04-12",
    "store my website https://janedoe.dev for next time",
    "note my address: 12 Rua Augusta, Lisbon",
    "keep my passport expiry date, 2031-07-01, on record",
    "save that my manager is called Ines",
    "remember I take my coffee black",
    "my mobile is 07700 900123, save it",
  ],
  "memory.get": [
    "what's my email address?",
    "what phone number did I give you?",
    "when is my birthday, did I tell you?",
    "what was the website I asked you to remember?",
    "recall my home address",
    "what is my manager's name again",
    "how do I take my coffee?",
    "what's my passport expiry date",
  ],
  "memory.list": [
    "list everything you remember about me",
    "show me all the things I've asked you to save",
    "what facts have you stored for me so far?",
    "which keys are in my memory?",
  ],
} as const satisfies Record<string, readonly string[]>;

export const MEMORY_HELDOUT_S26: Record<string, string[]> = {
  ...Object.fromEntries(Object.entries(SAVE_OR_READ_HELDOUT_S26).map(([id, queries]) => [id, [...queries]])),
  "memory.delete": [
    "forget my email address alice@example.org",
    "delete the phone number I saved",
    "stop remembering my birthday",
    "erase my home address from your memory",
    "remove the website https://janedoe.dev you kept for me",
    "forget everything about my coffee order",
  ],
  // Near-misses: the same kinds of data, another skill's job.
  "text.extract": [
    "extract the email addresses from this text: contact bob@example.com or ann@example.org",
    "pull all the phone numbers out of this paragraph",
    "find every URL in this page text",
  ],
  "http.request": [
    "fetch https://example.com/api",
    "fetch https://api.example.com/users",
    "send a GET request to https://api.example.com/v1/orders?status=open",
    "POST this JSON to https://hooks.example.com/ingest",
  ],
  "message.send": [
    "send bob@example.com a message on the #general channel",
    "post my phone number in #support",
  ],
  "time.diff": ["how many days between 2024-01-01 and my birthday on 2024-04-12?"],
  "crypto.hash": ["compute the sha256 of my email address alice@example.org"],
  "encoding.convert": ["base64-encode my email bob@example.com"],
};
