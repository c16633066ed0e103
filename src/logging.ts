import pino from "pino";

/**
 * Structured JSON logs. Secrets never reach them: the core never logs a secret, and as a
 * second line of defence any field that could hold one is redacted by name.
 */
export function createLogger(level: string, destination: 1 | 2 = 1): pino.Logger {
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
    },
    pino.destination({ fd: destination, sync: false }),
  );
}
