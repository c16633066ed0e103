import { maskWorkingSecrets } from "../keys/secret.js";
import { textWithoutCredentials } from "../skills/url-credentials.js";

/**
 * Text a skill wrote (a log line, a field of one, a progress message, an error's message or
 * stack) with credentials masked by the rules execution records are masked by: the user
 * information and credential members of any URL in it (`textWithoutCredentials`) and
 * working skillport secrets (`maskWorkingSecrets`). Database drivers and HTTP clients quote
 * their connection string or URL in their errors (`connect failed:
 * postgres://admin:hunter2@db/x`), and a skill that catches one and logs it, or reports
 * it as progress, sends that text to the server's log and to its caller. The one rule for
 * every way out of a run: `maskedLogFields` and `shownProgress` use it.
 */
export function maskedSkillText(text: string): string {
  return maskWorkingSecrets(textWithoutCredentials(text));
}

/** A skill's error as a caller is shown it: its name, code and message, credentials masked. */
interface ShownSkillError {
  type: string;
  message: string;
  code?: string | number;
}

/**
 * A skill's error with `maskedSkillText` applied. For a caller (`stacks` false): its name,
 * code and message. For the server's log: a copy of the error itself (its class, so the
 * log's `type` stays `TypeError`; its code; its stack; its `cause`, masked the same way:
 * `fetch failed` says why only in its cause), never the original, which may hold the
 * credential in any of them.
 */
function maskedError(err: Error, stacks: boolean, ancestors: Set<object>): ShownSkillError | Error {
  const { code } = err as { code?: unknown };
  const shownCode = typeof code === "string" || typeof code === "number" ? { code } : {};
  if (!stacks) return { type: err.name, message: maskedSkillText(err.message), ...shownCode };
  const copy = Object.create(Object.getPrototypeOf(err) as object) as Error;
  Object.assign(copy, shownCode, { message: maskedSkillText(err.message) });
  if (err.name !== copy.name) copy.name = err.name;
  if (err.stack !== undefined) copy.stack = maskedStack(err.stack);
  if (err.cause !== undefined) copy.cause = masked(err.cause, stacks, ancestors);
  return copy;
}

/** Where a V8 stack's frames start: the first line of the form `    at …`. */
const FIRST_FRAME = /\n[ \t]+at /;

/**
 * A stack with `maskedSkillText` applied to its head (the error's name and message) and to
 * each of its frames on its own. In free text the value of a credential member runs to the
 * end of the text (`?password=…`, `api_key=…`: it may hold anything but `&`, `;` or `#`),
 * so a stack masked whole lost every frame after such a message, the one place that says
 * where the error was thrown. A stack without frames is masked whole.
 */
function maskedStack(stack: string): string {
  const framesAt = stack.search(FIRST_FRAME);
  if (framesAt === -1) return maskedSkillText(stack);
  const frames = stack.slice(framesAt).split("\n").map(maskedSkillText).join("\n");
  return maskedSkillText(stack.slice(0, framesAt)) + frames;
}

/**
 * A skill's log fields with credentials masked: every string by `maskedSkillText`, and an error as
 * `maskedError` (without its stack unless `stacks`: the server's log keeps it, a
 * caller never sees one). Objects are copied through their `toJSON` (a `URL` holds its
 * credentials in `href`), and a cycle is cut where it closes.
 */
export function maskedLogFields(fields: object, { stacks }: { stacks: boolean }): object {
  return masked(fields, stacks, new Set()) as object;
}

function masked(value: unknown, stacks: boolean, ancestors: Set<object>): unknown {
  if (typeof value === "string") return maskedSkillText(value);
  if (typeof value !== "object" || value === null) return value;
  if (ancestors.has(value)) return "[Circular]";
  if (value instanceof Error) {
    ancestors.add(value);
    try {
      return maskedError(value, stacks, ancestors);
    } finally {
      ancestors.delete(value);
    }
  }
  ancestors.add(value);
  try {
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === "function") return masked(toJSON.call(value), stacks, ancestors);
    if (Array.isArray(value)) return value.map((item) => masked(item, stacks, ancestors));
    return Object.fromEntries(
      Object.entries(value).map(([name, member]) => [name, masked(member, stacks, ancestors)]),
    );
  } finally {
    ancestors.delete(value);
  }
}
