import pino from "pino";
import { redactSecrets } from "./core/keys/secret.js";

/**
 * Structured JSON logs. Secrets never reach them: the core never logs a secret, and as
 * second lines of defence any field that could hold one is redacted by name, and anything
 * shaped like a secret by value as each line is written (a path a client put its key in, or
 * a library's error message quoting that path).
 */
export function createLogger(level: string, destination: 1 | 2 | pino.DestinationStream = 1): pino.Logger {
  return pino(
    {
      level,
      base: { service: "skillport" },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: {
        paths: [
          "secret",
          "*.secret",
          "authorization",
          "*.authorization",
          "headers.authorization",
          "*.headers.authorization",
        ],
        censor: "[redacted]",
      },
      hooks: { streamWrite: redactSecrets },
    },
    typeof destination === "number" ? pino.destination({ fd: destination, sync: false }) : destination,
  );
}
