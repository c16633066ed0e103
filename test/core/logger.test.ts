import { describe, expect, it } from "vitest";
import { type LogEntry, type Logger, lazyChildLogger, teeLogger } from "../../src/core/logger.js";

/** A logger recording the children it makes and the lines written through them. */
function recordingLogger(
  bindings: Record<string, unknown> = {},
  record = { children: 0, lines: [] as unknown[] },
) {
  const logger: Logger = {
    debug: (obj, msg) => record.lines.push({ level: "debug", ...bindings, ...obj, msg }),
    info: (obj, msg) => record.lines.push({ level: "info", ...bindings, ...obj, msg }),
    warn: (obj, msg) => record.lines.push({ level: "warn", ...bindings, ...obj, msg }),
    error: (obj, msg) => record.lines.push({ level: "error", ...bindings, ...obj, msg }),
    child: (more) => {
      record.children++;
      return recordingLogger({ ...bindings, ...more }, record).logger;
    },
  };
  return { logger, record };
}

describe("lazyChildLogger", () => {
  it("makes no child until a line is written, then writes every line through one child", () => {
    const { logger, record } = recordingLogger();
    const log = lazyChildLogger(logger, { execution_id: "exec_1" });
    expect(record.children).toBe(0);
    log.info({ step: 1 }, "first");
    log.error({ step: 2 }, "second");
    log.child({ part: "x" }).warn({}, "third");
    expect(record.children).toBe(2); // the lazy child, then the one asked for
    expect(record.lines).toEqual([
      { level: "info", execution_id: "exec_1", step: 1, msg: "first" },
      { level: "error", execution_id: "exec_1", step: 2, msg: "second" },
      { level: "warn", execution_id: "exec_1", part: "x", msg: "third" },
    ]);
  });
});

describe("teeLogger", () => {
  it("writes every line to the logger and tells the listener, children included", () => {
    const { logger, record } = recordingLogger();
    const heard: LogEntry[] = [];
    const log = teeLogger(logger, (entry) => heard.push(entry));
    log.warn({ step: 1 }, "first");
    log.child({ part: "x" }).debug({ step: 2 });
    expect(record.lines).toEqual([
      { level: "warn", step: 1, msg: "first" },
      { level: "debug", part: "x", step: 2, msg: undefined },
    ]);
    expect(heard).toEqual([
      { level: "warn", message: "first", fields: { step: 1 } },
      { level: "debug", message: undefined, fields: { step: 2 } },
    ]);
  });
});
