import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, startServer, type TestServer } from "./harness.js";

// Audit 21, #6: a second `serve` on a taken port said why only in a JSON log line on stdout,
// and with SKILLPORT_LOG_LEVEL=silent said nothing at all before exiting 1.
describe("serve on a port another server holds", () => {
  let first: TestServer;
  let dataDir: string;

  beforeAll(async () => {
    first = await startServer({ env: { SKILLPORT_DISCOVERY_MODE: "lexical" } });
    dataDir = await mkdtemp(join(tmpdir(), "skillport-port-taken-"));
  });
  afterAll(async () => {
    await first?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  for (const logLevel of ["info", "silent"]) {
    it(`exits 1 saying on stderr, in one plain line, that the address is in use (SKILLPORT_LOG_LEVEL=${logLevel})`, async () => {
      const port = new URL(first.baseUrl).port;
      const second = await runCli(["serve"], {
        SKILLPORT_DATA_DIR: dataDir,
        SKILLPORT_HOST: "127.0.0.1",
        SKILLPORT_PORT: port,
        SKILLPORT_DISCOVERY_MODE: "lexical",
        SKILLPORT_LOG_LEVEL: logLevel,
      });
      expect(second.code).toBe(1);
      expect(second.stderr.split("\n")).toContain(
        `skillport serve: cannot listen on 127.0.0.1:${port}: address already in use (another server? set SKILLPORT_PORT or --port)`,
      );
      // The first server is unaffected.
      expect((await first.request("GET", "/healthz")).status).toBe(200);
    });
  }
});
