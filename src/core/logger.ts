/**
 * The logging port: the core and skills log through this shape (pino's), so the core
 * does not depend on a logging library and tests can pass a silent logger.
 */
export interface Logger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  child(bindings: Record<string, unknown>): Logger;
}

export const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  child() {
    return silentLogger;
  },
};

/**
 * A child logger made only when first used: most executions never log, and building a
 * child per execution shows up on the hot path.
 */
export function lazyChildLogger(parent: Logger, bindings: Record<string, unknown>): Logger {
  let child: Logger | undefined;
  const get = () => {
    child ??= parent.child(bindings);
    return child;
  };
  return {
    debug: (obj, msg) => get().debug(obj, msg),
    info: (obj, msg) => get().info(obj, msg),
    warn: (obj, msg) => get().warn(obj, msg),
    error: (obj, msg) => get().error(obj, msg),
    child: (more) => get().child(more),
  };
}

export type LogLevel = "debug" | "info" | "warn" | "error";

/** A log line as a listener outside the logging library receives it. */
export interface LogEntry {
  level: LogLevel;
  message: string | undefined;
  fields: object;
}

/**
 * `logger`, also telling `listener` of every line (e.g. an MCP client that asked for a
 * skill's log as `notifications/message`).
 */
export function teeLogger(logger: Logger, listener: (entry: LogEntry) => void): Logger {
  const line =
    (level: LogLevel) =>
    (fields: object, message?: string): void => {
      logger[level](fields, message);
      listener({ level, message, fields });
    };
  return {
    debug: line("debug"),
    info: line("info"),
    warn: line("warn"),
    error: line("error"),
    child: (bindings) => teeLogger(logger.child(bindings), listener),
  };
}
