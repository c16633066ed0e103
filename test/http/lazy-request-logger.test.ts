import { Writable } from "node:stream";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { lazyRequestLogger } from "../../src/http/lazy-request-logger.js";

function capturingLogger(level: string) {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  const logger = pino({ level }, sink);
  let children = 0;
  const child = logger.child.bind(logger);
  logger.child = ((...args: Parameters<typeof child>) => {
    children++;
    return child(...args);
  }) as typeof logger.child;
  return { logger, lines, children: () => children };
}

describe("lazyRequestLogger", () => {
  it("makes no child while the request does not log, even when its level is read", () => {
    const { logger, lines, children } = capturingLogger("warn");
    const log = lazyRequestLogger(logger, { reqId: "req_1" }, {});
    expect(log.level).toBe("warn");
    expect(children()).toBe(0);
    log.info({ skipped: true }, "below the level");
    expect(lines).toEqual([]);
  });

  it("writes lines with the request's bindings, through one child", () => {
    const { logger, lines, children } = capturingLogger("info");
    const log = lazyRequestLogger(logger, { reqId: "req_2" }, {});
    expect(children()).toBe(0);
    log.info({ status: 200 }, "request");
    log.error({ code: "internal_error" }, "request failed");
    expect(children()).toBe(1);
    expect(lines).toEqual([
      expect.objectContaining({ reqId: "req_2", status: 200, msg: "request", level: 30 }),
      expect.objectContaining({ reqId: "req_2", code: "internal_error", msg: "request failed", level: 50 }),
    ]);
  });

  it("honours a level given for the child, and a level set on it", () => {
    const { logger, lines } = capturingLogger("info");
    const log = lazyRequestLogger(logger, { reqId: "req_3" }, { level: "error" });
    expect(log.level).toBe("error");
    log.info({}, "not written");
    log.level = "debug";
    log.debug({}, "written");
    expect(lines.map((line) => line.msg)).toEqual(["written"]);
  });
});
