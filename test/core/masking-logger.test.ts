import { describe, expect, it } from "vitest";
import { type Logger, type LogLevel, maskingLogger } from "../../src/core/logger.js";

/** A logger that keeps its lines, writing only at `level` and above (as pino does). */
function keptLines(level: LogLevel) {
  const order: LogLevel[] = ["debug", "info", "warn", "error"];
  const lines: { level: LogLevel; fields: Record<string, unknown>; message?: string }[] = [];
  const line = (at: LogLevel) => (fields: object, message?: string) =>
    void lines.push({ level: at, fields: fields as Record<string, unknown>, message });
  const logger: Logger = {
    debug: line("debug"),
    info: line("info"),
    warn: line("warn"),
    error: line("error"),
    child: () => logger,
    isLevelEnabled: (asked) => order.indexOf(asked) >= order.indexOf(level),
  };
  return { logger, lines };
}

describe("a skill's masking logger", () => {
  it("does not walk the fields of a line its level drops", () => {
    const { logger, lines } = keptLines("info");
    let read = 0;
    const fields = {
      get url() {
        read++;
        return "https://user:hunter2@example.test/";
      },
    };
    maskingLogger(logger).debug(fields, "dropped");
    expect(read).toBe(0);
    maskingLogger(logger).info(fields, "kept");
    expect(read).toBe(1);
    expect(lines).toEqual([
      { level: "info", fields: { url: expect.not.stringContaining("hunter2") }, message: "kept" },
    ]);
  });

  it("keeps an error's class, code and cause in the server's log, masked", () => {
    const { logger, lines } = keptLines("debug");
    const cause = Object.assign(new Error("connect ECONNREFUSED postgres://admin:hunter2@db:5432/x"), {
      code: "ECONNREFUSED",
    });
    const err = new TypeError("fetch failed", { cause });
    maskingLogger(logger).error({ err }, "skill could not fetch");
    const logged = lines[0]?.fields.err as TypeError & { cause: Error & { code: string } };
    expect(logged).toBeInstanceOf(TypeError);
    expect(logged).not.toBe(err);
    expect(logged.message).toBe("fetch failed");
    expect(logged.cause.code).toBe("ECONNREFUSED");
    expect(logged.cause.message).toMatch(/^connect ECONNREFUSED postgres:\/\//);
    expect(logged.cause.message).not.toContain("hunter2");
    expect(logged.cause.stack).not.toContain("hunter2");
  });

  it("keeps every frame of a stack whose message holds a credential member, the credentials masked", () => {
    // A credential member's value runs to the end of free text: the stack, masked whole,
    // ended at the message and lost the frames that say where the error was thrown.
    const { logger, lines } = keptLines("debug");
    const err = new Error(
      "connect failed https://admin:hunter2@db.example/app?password=hunter2 (after 3 tries)",
    );
    err.stack = [
      `Error: ${err.message}`,
      "    at Client.connect (file:///app/node_modules/pg/lib/client.js:132:11)",
      "    at load (https://cdn.example/skill.js?token=cdn-secret:1:2)",
      "    at async main (file:///app/main.js:3:1)",
    ].join("\n");
    maskingLogger(logger).error({ err }, "skill could not connect");
    const logged = lines[0]?.fields.err as Error;
    expect(logged.stack?.split("\n")).toEqual([
      "Error: connect failed https://admin:[redacted]@db.example/app?password=[redacted]",
      "    at Client.connect (file:///app/node_modules/pg/lib/client.js:132:11)",
      "    at load (https://cdn.example/skill.js?token=[redacted]",
      "    at async main (file:///app/main.js:3:1)",
    ]);
  });
});
