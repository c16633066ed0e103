import type { FastifyBaseLogger } from "fastify";
import type { Bindings, ChildLoggerOptions, LogFn } from "pino";

/**
 * Fastify's `childLoggerFactory`: each request's logger, made only when the request logs.
 * Fastify makes a pino child per request (about 2 µs with redaction configured), and most
 * requests log nothing: the one request line is skipped when info is not written, errors
 * are rare. Reading `level` does not make the child.
 */
export function lazyRequestLogger(
  parent: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  let child: FastifyBaseLogger | undefined;
  const real = (): FastifyBaseLogger => {
    child ??= parent.child(bindings, options);
    return child;
  };
  const line =
    (level: "fatal" | "error" | "warn" | "info" | "debug" | "trace"): LogFn =>
    (...args: Parameters<LogFn>) =>
      real()[level](...args);
  return {
    get level() {
      return child?.level ?? options.level ?? parent.level;
    },
    set level(level: string) {
      real().level = level;
    },
    fatal: line("fatal"),
    error: line("error"),
    warn: line("warn"),
    info: line("info"),
    debug: line("debug"),
    trace: line("trace"),
    silent: () => {},
    child: (more, moreOptions) => real().child(more, moreOptions),
  };
}
