import { maskWorkingSecrets } from "../keys/secret.js";
import { textWithoutCredentials } from "../skills/url-credentials.js";

/** A skill's unexpected error as the log keeps it: pino's `err` shape, credentials masked. */
export interface LoggedSkillError {
  type: string;
  message: string;
  stack?: string;
}

/**
 * A skill's unexpected error for the log, its message and stack with credentials masked by
 * the project's rules: the user information and credential members of any URL in them
 * (`textWithoutCredentials`) and working skillport secrets (`maskWorkingSecrets`). Database
 * drivers and HTTP clients quote their connection string or URL in their errors
 * (`connect failed: postgres://admin:hunter2@db/x`), and the line goes to the server's log
 * and, relayed, to an MCP client that asked for the run's log (audit 26 F11).
 */
export function loggedSkillError(err: unknown): LoggedSkillError {
  if (!(err instanceof Error)) return { type: typeof err, message: masked(String(err)) };
  return {
    type: err.name,
    message: masked(err.message),
    ...(err.stack !== undefined && { stack: masked(err.stack) }),
  };
}

function masked(text: string): string {
  return maskWorkingSecrets(textWithoutCredentials(text));
}
