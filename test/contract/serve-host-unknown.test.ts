import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./harness.js";

// `serve --host` with a name that resolves to nothing said only Node's
// "getaddrinfo ENOTFOUND …", where every other listen failure names the setting to change.
describe("serve on a host name that resolves to nothing", () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "skillport-host-unknown-"));
  });
  afterAll(async () => {
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it("exits 1 saying so in one plain line, with the setting to change", async () => {
    const served = await runCli(["serve", "--host", "no-such-host.invalid", "--port", "0"], {
      SKILLPORT_DATA_DIR: dataDir,
      SKILLPORT_DISCOVERY_MODE: "lexical",
      SKILLPORT_LOG_LEVEL: "silent",
    });
    expect(served.code).toBe(1);
    expect(served.stderr.split("\n")).toContain(
      "skillport serve: cannot listen on no-such-host.invalid:0: cannot resolve this host name (set SKILLPORT_HOST or --host to an address of this machine, such as 127.0.0.1, or 0.0.0.0 for all)",
    );
  });
});
