import { maskedLogFields, maskedSkillText } from "./execution/skill-output-masking.js";

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
  /** Whether a line of `level` would be written (pino's): work for a line that would not is skipped. */
  isLevelEnabled?(level: LogLevel): boolean;
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
  /** The parent's answer: a child writes at its parent's level, and asking makes no child. */
  isLevelEnabled(level: LogLevel): boolean {
    return this.parent.isLevelEnabled?.(level) ?? true;
  }
}

export type LogLevel = "debug" | "info" | "warn" | "error";

/**
 * A log line as a listener outside the logging library receives it, to send to a caller:
 * its fields as JSON carries them (`callerLogFields`).
 */
export interface LogEntry {
  level: LogLevel;
  message: string | undefined;
  fields: object;
}

/**
 * A log line's fields as a caller receives them (a REST stream's `log` event, an MCP
 * `notifications/message`): credentials masked (`maskedLogFields`), an error as its name and
 * message (never its stack: no internal detail reaches a client), and fields JSON cannot
 * hold (a BigInt) left out rather than ending the stream. The one conversion for every
 * surface: embedded MCP once sent an Error as `{}` where REST and `--remote` sent
 * `{type, message}`.
 */
function callerLogFields(fields: object): object {
  try {
    return JSON.parse(JSON.stringify(maskedLogFields(fields, { stacks: false }))) as object;
  } catch {
    return {};
  }
}

/**
 * `logger` for a skill to write through: its lines' fields, messages and bindings with
 * credentials masked (`maskedLogFields`), errors with their stacks, so that what a skill
 * logs reaches the server's log masked as its thrown error does.
 */
export function maskingLogger(logger: Logger): Logger {
  return new MaskingLogger(logger);
}

/**
 * A logger that writes through another: every level goes to `line`, which a line the
 * wrapped logger's level drops never reaches (the wrappers' work, masking or telling a
 * listener, walks every field).
 */
abstract class WrappingLogger implements Logger {
  constructor(protected readonly logger: Logger) {}

  debug(fields: object, message?: string): void {
    this.line("debug", fields, message);
  }
  info(fields: object, message?: string): void {
    this.line("info", fields, message);
  }
  warn(fields: object, message?: string): void {
    this.line("warn", fields, message);
  }
  error(fields: object, message?: string): void {
    this.line("error", fields, message);
  }
  abstract child(bindings: Record<string, unknown>): Logger;

  isLevelEnabled(level: LogLevel): boolean {
    return this.logger.isLevelEnabled?.(level) ?? true;
  }

  /** One line the wrapped logger's level keeps. */
  protected abstract write(level: LogLevel, fields: object, message?: string): void;

  private line(level: LogLevel, fields: object, message?: string): void {
    if (this.isLevelEnabled(level)) this.write(level, fields, message);
  }
}

class MaskingLogger extends WrappingLogger {
  child(bindings: Record<string, unknown>): Logger {
    return new MaskingLogger(
      this.logger.child(maskedLogFields(bindings, { stacks: true }) as Record<string, unknown>),
    );
  }

  protected write(level: LogLevel, fields: object, message?: string): void {
    this.logger[level](
      maskedLogFields(fields, { stacks: true }),
      typeof message === "string" ? maskedSkillText(message) : message,
    );
  }
}

/**
 * `logger`, also telling `listener` of every line as a caller receives it (`LogEntry`), e.g.
 * an MCP client that asked for a skill's log as `notifications/message`.
 */
export function teeLogger(logger: Logger, listener: (entry: LogEntry) => void): Logger {
  return new TeeLogger(logger, listener);
}

/** A class rather than an object of closures: MCP calls make one per execution. */
class TeeLogger extends WrappingLogger {
  constructor(
    logger: Logger,
    private readonly listener: (entry: LogEntry) => void,
  ) {
    super(logger);
  }

  child(bindings: Record<string, unknown>): Logger {
    return new TeeLogger(this.logger.child(bindings), this.listener);
  }

  protected write(level: LogLevel, fields: object, message?: string): void {
    this.logger[level](fields, message);
    this.listener({
      level,
      message: typeof message === "string" ? maskedSkillText(message) : message,
      fields: callerLogFields(fields),
    });
  }
}
