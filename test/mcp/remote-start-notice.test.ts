import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { RemoteBackend } from "../../src/mcp/remote-backend.js";
import { capturingLogger } from "../support/capturing-logger.js";
import { type Answer, client, type FakeApi, fakeApi, NO_EXECUTIONS, skillsNamed } from "./fake-rest-api.js";

// A start waits for the server as long as the client allows (a minute), so that a slow
// server is no failed start; one that hangs left the assistant's log silent for that
// minute (left open in sessions 33-37). Past a healthy server's time, the log says so.
describe("skillport mcp --remote, a server slow to answer at start-up", () => {
  let api: FakeApi | undefined;
  afterEach(async () => {
    await api?.close();
    api = undefined;
  });

  const NOTICE = "mcp --remote: the server has not answered yet; waiting for it before serving tools";

  /** Starts the bridge's backend on a server answering as `route` says; the log lines it wrote. */
  async function start(route: (request: string) => Answer | Promise<Answer>) {
    api = await fakeApi(route);
    const lines: Record<string, unknown>[] = [];
    const remote = client(api.baseUrl);
    try {
      const options = { baseUrl: api.baseUrl, logger: capturingLogger(lines), startNoticeMs: 200 };
      const backend = await RemoteBackend.connect(remote, options);
      const catalog = await backend.catalogAtStart();
      return { lines, catalog: catalog.map((skill) => skill.skill_id) };
    } finally {
      await remote.close();
    }
  }

  const slowly = async (answer: Answer) => {
    await sleep(700);
    return answer;
  };
  const notices = (lines: Record<string, unknown>[]) => lines.filter((line) => line.msg === NOTICE);

  it("logs once that it waits when the key's check is not answered in time, and starts when it is", async () => {
    const { lines, catalog } = await start((request) =>
      request.startsWith("GET /v1/executions") ? slowly(NO_EXECUTIONS) : skillsNamed("math.evaluate"),
    );
    expect(catalog).toEqual(["math.evaluate"]);
    expect(notices(lines)).toEqual([{ level: "warn", base_url: api?.baseUrl, waited_ms: 200, msg: NOTICE }]);
  });

  it("logs it when the catalog is slow as well", async () => {
    const { lines, catalog } = await start((request) =>
      request.startsWith("GET /v1/executions") ? NO_EXECUTIONS : slowly(skillsNamed("text.stats")),
    );
    expect(catalog).toEqual(["text.stats"]);
    expect(notices(lines)).toHaveLength(1);
  });

  it("logs nothing of the kind for a server that answers in time", async () => {
    const { lines } = await start((request) =>
      request.startsWith("GET /v1/executions") ? NO_EXECUTIONS : skillsNamed("text.stats"),
    );
    expect(lines).toEqual([]);
  });
});
