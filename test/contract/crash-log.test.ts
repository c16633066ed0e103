import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CLI_PATH, createKey, leakedSecrets, REPO_ROOT, startServer, type TestServer } from "./harness.js";

// A bug that escapes every handler (in a skill running on the main thread, a driver's
// event) ends `serve`. The operator must find why in the JSON log, and the error's text
// must be masked there as every log line is: Node's own report printed it on stderr as
// it was, an API key in its message and a password in its properties.

const CRASH_ON_SIGNAL = resolve(REPO_ROOT, "test/contract/fixtures/crash-on-signal.mjs");
const PASSWORD = "hunter2-crash-password";

describe("contract: a crash is logged, masked", { timeout: 60_000 }, () => {
  const dataDirs: string[] = [];
  const servers: TestServer[] = [];
  afterAll(async () => {
    // `stop` throws when a server's output holds a secret the tests created.
    for (const server of servers) await server.stop();
    for (const dir of dataDirs) await rm(dir, { recursive: true, force: true });
  });

  for (const crashAs of ["exception", "rejection"] as const) {
    it(`an uncaught ${crashAs} ends serve with code 1 and a fatal JSON line, its secrets masked`, async () => {
      const dataDir = await mkdtemp(join(tmpdir(), "skillport-crash-log-"));
      dataDirs.push(dataDir);
      const key = await createKey(dataDir);
      const server = await startServer({
        dataDir,
        env: {
          NODE_OPTIONS: `--import=${CRASH_ON_SIGNAL}`,
          CRASH_AS: crashAs,
          CRASH_MESSAGE: `boom: the agent's key ${key.secret} at postgres://admin:${PASSWORD}@db.internal/app`,
          CRASH_CONNECTION: `postgres://admin:${PASSWORD}@db.internal/app`,
        },
      });
      servers.push(server);

      server.child.kill("SIGUSR2");
      expect(await server.exited).toBe(1);

      const output = server.logs();
      expect(output).not.toContain(PASSWORD);
      const fatal = output
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as { level: number; msg: string; origin?: string; err?: unknown })
        .filter((line) => line.level === 60);
      expect(fatal).toEqual([
        expect.objectContaining({
          msg:
            crashAs === "exception"
              ? "crashed: an exception was thrown and nothing caught it"
              : "crashed: a promise was rejected and nothing handled it",
          origin: crashAs === "exception" ? "uncaughtException" : "unhandledRejection",
          err: expect.objectContaining({
            type: "Error",
            message: expect.stringMatching(/^boom: the agent's key sk_\[redacted\] at postgres:\/\/admin:/),
          }),
        }),
      ]);
      expect(output).toMatch(/^skillport serve: crashed: .*: boom: the agent's key sk_\[redacted\]/m);
    });
  }

  it("an uncaught exception ends mcp (stdio) with code 1 and a fatal JSON line on stderr, stdout untouched", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "skillport-crash-log-"));
    dataDirs.push(dataDir);
    const key = await createKey(dataDir);
    const child = spawn(process.execPath, [CLI_PATH, "mcp", "--data-dir", dataDir], {
      env: {
        ...process.env,
        SKILLPORT_API_KEY: key.secret,
        SKILLPORT_DISCOVERY_MODE: "lexical",
        NODE_OPTIONS: `--import=${CRASH_ON_SIGNAL}`,
        CRASH_AS: "exception",
        CRASH_MESSAGE: `boom: postgres://admin:${PASSWORD}@db.internal/app`,
        CRASH_CONNECTION: `postgres://admin:${PASSWORD}@db.internal/app`,
      },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    const started = new Promise<void>((resolvePromise) => {
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString("utf8");
        // Its first log line comes once the store is open, the crash handler long in place.
        if (stderr.includes('"service":"skillport"')) resolvePromise();
      });
    });
    const exited = once(child, "exit");
    await started;
    child.kill("SIGUSR2");
    const [code] = await exited;

    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).not.toContain(PASSWORD);
    expect(leakedSecrets(stderr)).toEqual([]);
    expect(stderr).toMatch(/"level":60,.*"msg":"crashed: an exception was thrown and nothing caught it"/);
    expect(stderr).toMatch(/^skillport mcp: crashed: an exception was thrown and nothing caught it: boom: /m);
  });
});
