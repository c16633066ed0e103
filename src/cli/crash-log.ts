import { maskedLogFields, maskedSkillText } from "../core/execution/skill-output-masking.js";
import { redactSecrets } from "../core/keys/secret.js";

/** What a crash needs of the process's logger (pino's). */
export interface CrashLogger {
  fatal(obj: object, msg?: string): void;
  flush(): void;
}

/**
 * Makes an exception nothing caught, or a rejection nothing handled, end the process with a
 * `fatal` line in its JSON log and one line on stderr, then exit code 1. Node's own report
 * went to stderr only, outside the log an operator collects, and printed the error as it
 * was: its message, stack and every property, where a skill running on the main thread
 * (`lightAsyncIo`) or a driver may have put a URL with its password or an API key. The line
 * masks them as a skill's log lines are masked (`maskedLogFields`), and the redaction every
 * log line passes (`createLogger`) applies too. Executions left running are ended
 * `execution_interrupted` by the next start, as after any other crash.
 */
export function logCrashes(command: string, logger: CrashLogger): void {
  process.on("uncaughtException", (err, origin) => {
    const what =
      origin === "unhandledRejection"
        ? "a promise was rejected and nothing handled it"
        : "an exception was thrown and nothing caught it";
    try {
      logger.fatal({ ...maskedLogFields({ err }, { stacks: true }), origin }, `crashed: ${what}`);
      logger.flush();
    } finally {
      // Said on stderr too, as a start-up failure is: the log may be silenced or collected elsewhere.
      process.stderr.write(`skillport ${command}: crashed: ${what}: ${messageOf(err)}\n`);
      process.exit(1);
    }
  });
}

function messageOf(err: unknown): string {
  return redactSecrets(maskedSkillText(err instanceof Error ? err.message : String(err)));
}
