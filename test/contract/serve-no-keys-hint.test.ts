import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it, onTestFinished } from "vitest";
import { noKeysHint } from "../../src/cli/no-keys-hint.js";
import { startServer, type TestServer } from "./harness.js";

/** The server's console once it says something matching `pattern`, or after two seconds. */
async function consoleOnceItSays(server: TestServer, pattern: RegExp): Promise<string> {
  for (let waited = 0; waited < 2000 && !pattern.test(server.logs()); waited += 50) await sleep(50);
  return server.logs();
}

// Audit 32: a first `serve` answered every request 401 and said nothing of keys; how to make
// one was in the README only, and a key made in another data directory works nowhere here.
describe("serve on a store without keys", () => {
  it("says on its console how to create a key in its own store, until one exists", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "skillport-test-"));
    onTestFinished(() => rm(dataDir, { recursive: true, force: true }));
    const first = await startServer({ dataDir });
    let logs: string;
    try {
      logs = await consoleOnceItSays(first, /holds no API key yet/);
      await first.createKey();
    } finally {
      await first.stop();
    }
    expect(logs).toContain(
      `skillport: the SQLite store ${dataDir}/skillport.db holds no API key yet, so /v1 and /mcp answer 401. Create one with\n\n` +
        `    skillport keys create --name NAME --scope full-access --data-dir ${dataDir}\n`,
    );
    const again = await startServer({ dataDir });
    try {
      expect(await consoleOnceItSays(again, /holds no API key yet/)).not.toContain("holds no API key");
    } finally {
      await again.stop();
    }
  });

  it("names the database's variables instead of a data directory on PostgreSQL, and says nothing once a key exists, revoked or not", async () => {
    const config = { dataDir: "/unused", databaseUrl: "postgres://app:pw@db:5432/skillport" };
    const none = { active: 0, revoked: 0, expired: 0 };
    const hint = await noKeysHint({ counts: async () => none }, config);
    expect(hint).toContain(
      "the PostgreSQL store postgres://app:[redacted]@db:5432/skillport holds no API key yet",
    );
    expect(hint).toContain("with this server's SKILLPORT_DATABASE_URL and SKILLPORT_REDIS_URL set");
    expect(hint).not.toContain("--data-dir");
    expect(hint).not.toContain("pw");
    expect(await noKeysHint({ counts: async () => ({ ...none, revoked: 1 }) }, config)).toBeUndefined();
  });
});
