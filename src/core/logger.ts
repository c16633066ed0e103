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
