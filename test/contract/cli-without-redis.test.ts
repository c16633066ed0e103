import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createTestDatabase, scaleOutServices } from "../support/scale-out-services.js";
import { freePort, runCli } from "./harness.js";

/**
 * The `keys` and `learning` commands count no request, so they need no Redis: an operator
 * must be able to revoke a leaked key while Redis is down (the replicas keep serving then,
 * under SKILLPORT_REDIS_DOWN=local). Audit 18: they failed "Cannot connect to Redis".
 */
describe("contract: the keys and learning commands while Redis is out of reach", { timeout: 60_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), "skillport-cli-no-redis-"));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  async function createListRevoke(env: Record<string, string>): Promise<void> {
    const created = await runCli(
      ["keys", "create", "--name", "leaked", "--scope", "full-access", "--owner", "ops", "--json"],
      env,
    );
    expect(created.code, created.stderr).toBe(0);
    const { id } = JSON.parse(created.stdout) as { id: string };
    const revoked = await runCli(["keys", "revoke", id], env);
    expect(revoked.code, revoked.stderr).toBe(0);
    const listed = await runCli(["keys", "list", "--json"], env);
    expect(listed.code, listed.stderr).toBe(0);
    const keys = JSON.parse(listed.stdout) as { id: string; revoked_at: string | null }[];
    expect(keys.find((key) => key.id === id)?.revoked_at).toEqual(expect.any(String));
    const learned = await runCli(["learning", "list", "--owner", "ops", "--json"], env);
    expect(learned.code, learned.stderr).toBe(0);
  }

  it("creates, revokes and lists keys on the SQLite store with SKILLPORT_REDIS_URL unreachable", async () => {
    // Nothing listens on a port just freed: connecting to it is refused at once.
    await createListRevoke({
      SKILLPORT_DATA_DIR: dataDir,
      SKILLPORT_REDIS_URL: `redis://127.0.0.1:${await freePort()}`,
    });
  });

  const services = scaleOutServices();
  it.skipIf(!services)("creates, revokes and lists keys on PostgreSQL with Redis unreachable", async () => {
    if (!services) return;
    const database = await createTestDatabase(services);
    try {
      await createListRevoke({
        SKILLPORT_DATABASE_URL: database.databaseUrl,
        SKILLPORT_REDIS_URL: `redis://127.0.0.1:${await freePort()}`,
      });
    } finally {
      await database.drop();
    }
  });
});
