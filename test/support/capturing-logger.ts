import type { Logger } from "../../src/core/logger.js";

/**
 * A logger (the core's port) that keeps every line in `lines` as one object: its level, the
 * child bindings, the logged object's members and its message. For tests that read what the
 * core logged without a logging library in between (`capturedLog` runs pino).
 */
export function capturingLogger(
  lines: Record<string, unknown>[],
  bindings: Record<string, unknown> = {},
): Logger {
  const log = (level: string) => (obj: object, msg?: string) => {
    lines.push({ level, ...bindings, ...obj, msg });
  };
  return {
    debug: log("debug"),
    info: log("info"),
    warn: log("warn"),
    error: log("error"),
    child: (more) => capturingLogger(lines, { ...bindings, ...more }),
  };
}
