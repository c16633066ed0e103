import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Database } from "../../src/store/sqlite/driver.js";
import { databaseFileIn } from "../../src/store/sqlite/index.js";
import { createTestDatabase, scaleOutServices, skipWithoutServices } from "../support/scale-out-services.js";
import {
  apiRequest,
  bodyOf,
  type CreatedKey,
  dashboardSession,
  type ExecutionRecord,
  startServer,
  type TestServer,
} from "./harness.js";

const ADMIN_TOKEN = "execution-secrets-admin-token-0123456789";

interface Deployment {
  server: TestServer;
  alice: CreatedKey;
  /** Another owner's key, whose secret alice's agent passes along. */
  bob: CreatedKey;
  dashboardCookie: string;
  /** The `params` column of an execution's row, as the store holds it. */
  storedParams(id: string): Promise<string>;
  stop(): Promise<void>;
}

async function sqliteDeployment(): Promise<Deployment> {
  const server = await startServer({ env: { SKILLPORT_ADMIN_TOKEN: ADMIN_TOKEN } });
  return deployment(server, async (id) => {
    const db = new Database(databaseFileIn(server.dataDir), { readonly: true });
    try {
      const row = db.prepare("select params from executions where id = ?").get(id) as { params: string };
      return row.params;
    } finally {
      db.close();
    }
  });
}

async function postgresDeployment(services: { databaseUrl: string; redisUrl: string }): Promise<Deployment> {
  const database = await createTestDatabase(services);
  const server = await startServer({
    env: {
      SKILLPORT_ADMIN_TOKEN: ADMIN_TOKEN,
      SKILLPORT_DATABASE_URL: database.databaseUrl,
      SKILLPORT_REDIS_URL: services.redisUrl,
      SKILLPORT_REDIS_KEY_PREFIX: `secrets-${Date.now()}:`,
    },
  });
  const made = await deployment(server, async (id) => {
    const client = new pg.Client({ connectionString: database.databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query("select params::text as params from executions where id = $1", [
        id,
      ]);
      return String(rows[0]?.params);
    } finally {
      await client.end();
    }
  });
  return { ...made, stop: () => made.stop().then(database.drop) };
}

async function deployment(
  server: TestServer,
  storedParams: (id: string) => Promise<string>,
): Promise<Deployment> {
  return {
    server,
    alice: await server.createRoomyKey({ owner: "alice" }),
    bob: await server.createRoomyKey({ owner: "bob" }),
    dashboardCookie: await dashboardSession(server.baseUrl, ADMIN_TOKEN),
    storedParams,
    stop: async () => {
      await server.stop();
    },
  };
}

/**
 * Audit 22, security #1: an execution's params were stored as sent for the retention
 * period and printed on the dashboard's execution page: `http.request`'s Authorization
 * header, API keys in its URL, and another owner's skillport secret that an agent passed
 * along; a skill quoting its input put the secret in the record's error message, which
 * every key of the owner reads. Both stores now keep and show them masked.
 */
function secretsSuite(name: string, make: () => Promise<Deployment>) {
  describe(`${name}: credentials an agent passes in params`, { timeout: 120_000 }, () => {
    let d: Deployment;
    beforeAll(async () => {
      d = await make();
    });
    afterAll(() => d?.stop());

    const execute = async (skill_id: string, params: unknown) => {
      const res = await d.server.request("POST", "/v1/execute", {
        key: d.alice.secret,
        json: { skill_id, params },
      });
      expect(res.status, res.text).toBe(200);
      return bodyOf<ExecutionRecord>(res);
    };
    const dashboardPage = async (id: string) => {
      const page = await apiRequest(d.server.baseUrl, "GET", `/dashboard/executions/${id}`, {
        headers: { cookie: d.dashboardCookie },
      });
      expect(page.status, page.text).toBe(200);
      return page.text;
    };

    it("are neither stored nor shown on the dashboard once the execution ended", async () => {
      const record = await execute("http.request", {
        url: `http://127.0.0.1:1/?api_key=${d.bob.secret}&token=plainsecret123`,
        headers: {
          Authorization: "Bearer ghp_abcdefSECRET",
          "X-Api-Key": d.bob.secret,
          Accept: "text/plain",
        },
      });
      expect(record.status).toBe("failed");
      const stored = await d.storedParams(record.id);
      const page = await dashboardPage(record.id);
      for (const text of [stored, page]) {
        for (const leak of [d.bob.secret, "ghp_abcdefSECRET", "plainsecret123"])
          expect(text).not.toContain(leak);
        expect(text).toContain("[redacted]");
        // What is not a credential stays, so the page still says what was asked.
        expect(text).toContain("text/plain");
      }
    });

    it("are masked in an error message that quotes them, on the API and on the dashboard", async () => {
      const record = await execute("time.convert", { time: d.bob.secret, to_timezone: "UTC" });
      expect(record.status).toBe("failed");
      expect(record.error?.message).toContain("sk_[redacted]");
      const read = await d.server.request("GET", `/v1/executions/${record.id}`, { key: d.alice.secret });
      for (const text of [JSON.stringify(record), read.text, await dashboardPage(record.id)]) {
        expect(text).not.toContain(d.bob.secret);
      }
    });
  });
}

secretsSuite("SQLite", sqliteDeployment);

const services = scaleOutServices();
if (services) secretsSuite("PostgreSQL", () => postgresDeployment(services));
else skipWithoutServices("the PostgreSQL execution-secrets test");
