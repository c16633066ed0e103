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
  return new LazyChildLogger(parent, bindings);
}

/** A class rather than an object of closures: one allocation per execution, methods shared. */
class LazyChildLogger implements Logger {
  private made: Logger | undefined;

  constructor(
    private readonly parent: Logger,
    private readonly bindings: Record<string, unknown>,
  ) {}

  private get real(): Logger {
    this.made ??= this.parent.child(this.bindings);
    return this.made;
  }

  debug(obj: object, msg?: string): void {
    this.real.debug(obj, msg);
  }
  info(obj: object, msg?: string): void {
    this.real.info(obj, msg);
  }
  warn(obj: object, msg?: string): void {
    this.real.warn(obj, msg);
  }
  error(obj: object, msg?: string): void {
    this.real.error(obj, msg);
  }
  child(more: Record<string, unknown>): Logger {
    return this.real.child(more);
  }
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
