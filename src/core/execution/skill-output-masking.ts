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
 * every way out of a run: `maskedLogFields`, `loggedSkillError` and `shownProgress` use it.
 */
export function maskedSkillText(text: string): string {
  return maskWorkingSecrets(textWithoutCredentials(text));
}

/** A skill's unexpected error as the log keeps it: pino's `err` shape, credentials masked. */
interface LoggedSkillError {
  type: string;
  message: string;
  stack?: string;
}

/** A skill's error for the log: its name, and its message and stack masked (`maskedSkillText`). */
function loggedSkillError(err: unknown): LoggedSkillError {
  if (!(err instanceof Error)) return { type: typeof err, message: maskedSkillText(String(err)) };
  return {
    type: err.name,
    message: maskedSkillText(err.message),
    ...(err.stack !== undefined && { stack: maskedSkillText(err.stack) }),
  };
}

/**
 * A skill's log fields with credentials masked: every string by `maskedSkillText`, and an error as
 * `loggedSkillError` (without its stack unless `stacks`: the server's log keeps it, a
 * caller never sees one). Objects are copied through their `toJSON` (a `URL` holds its
 * credentials in `href`), and a cycle is cut where it closes.
 */
export function maskedLogFields(fields: object, { stacks }: { stacks: boolean }): object {
  return masked(fields, stacks, new Set()) as object;
}

function masked(value: unknown, stacks: boolean, ancestors: Set<object>): unknown {
  if (typeof value === "string") return maskedSkillText(value);
  if (value instanceof Error) {
    const { stack, ...error } = loggedSkillError(value);
    return stacks && stack !== undefined ? { ...error, stack } : error;
  }
  if (typeof value !== "object" || value === null) return value;
  if (ancestors.has(value)) return "[Circular]";
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
