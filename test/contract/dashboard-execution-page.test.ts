import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  apiRequest,
  bodyOf,
  type CreatedKey,
  dashboardSession,
  type ExecutionRecord,
  eventually,
  startServer,
  type TestServer,
} from "./harness.js";

const ADMIN_TOKEN = "dashboard-execution-page-admin-token-0123";

/** The dashboard's page of one execution: its timings as the page words them. */
describe("the dashboard's execution page", () => {
  let server: TestServer;
  let key: CreatedKey;
  let cookie: string;

  beforeAll(async () => {
    // One async slot: a second async execution stays queued behind the first.
    server = await startServer({
      env: { SKILLPORT_ADMIN_TOKEN: ADMIN_TOKEN, SKILLPORT_ASYNC_CONCURRENCY: "1" },
    });
    key = await server.createRoomyKey();
    cookie = await dashboardSession(server.baseUrl, ADMIN_TOKEN);
  });
  afterAll(() => server?.stop());

  const startAsync = async (params: Record<string, unknown>, skill_id = "util.wait") =>
    bodyOf<ExecutionRecord>(
      await server.request("POST", "/v1/execute", {
        key: key.secret,
        json: { skill_id, params, async: true },
      }),
    );
  const started = async (id: string) => {
    const page = await apiRequest(server.baseUrl, "GET", `/dashboard/executions/${id}`, {
      headers: { cookie },
    });
    expect(page.status).toBe(200);
    // The words of the fact, without their markup.
    return /<dt>Started<\/dt><dd>(.*?)<\/dd>/.exec(page.text)?.[1]?.replace(/<[^>]*>/g, "");
  };

  it("says an execution that ended without starting never started, and a queued one not yet", async () => {
    const holder = await startAsync({ ms: 20_000 });
    await eventually(async () => {
      const record = bodyOf<ExecutionRecord>(
        await server.request("GET", `/v1/executions/${holder.id}`, { key: key.secret }),
      );
      return record.status === "running" ? record : undefined;
    });
    const queued = await startAsync({ expression: "1+1" }, "math.evaluate");
    expect(queued.status).toBe("queued");
    expect(await started(queued.id)).toBe("not yet");

    const cancelled = bodyOf<ExecutionRecord>(
      await server.request("POST", `/v1/executions/${queued.id}/cancel`, { key: key.secret }),
    );
    expect(cancelled).toMatchObject({ status: "cancelled", started_at: null });
    expect(await started(queued.id)).toBe("never");
    await server.request("POST", `/v1/executions/${holder.id}/cancel`, { key: key.secret });
  });
});
