import { beforeAll, describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/store/sqlite/index.js";
import { makeKey } from "../store/contract/fixtures.js";
import { apiRequest, type CreatedKey, dashboardSession, serverForSuite } from "./harness.js";

const ADMIN_TOKEN = "contract-admin-token-0123456789";
/** More keys than the filters list in a select (PICKER_KEYS, 100). */
const MANY = 120;

/**
 * The Executions and Usage pages read every key on each view, for a select of them all and
 * to name the keys of the rows shown. With a few keys they still offer a select; past 100,
 * a field for a key's id, and the rows' keys are read by their ids.
 */
describe("the dashboard's key filters, with few keys and with many", () => {
  const server = serverForSuite({ env: { SKILLPORT_ADMIN_TOKEN: ADMIN_TOKEN } });
  let cookie = "";
  let key: CreatedKey;
  const get = async (path: string) => {
    const res = await apiRequest(server().baseUrl, "GET", path, { headers: { cookie } });
    expect(res.status, path).toBe(200);
    return res.text;
  };
  const options = (text: string, id: string) =>
    (new RegExp(`<select id="${id}"[^>]*>([\\s\\S]*?)</select>`).exec(text)?.[1] ?? "").match(/<option /g)
      ?.length;

  beforeAll(async () => {
    key = await server().createRoomyKey({ name: "the agent", owner: "acme" });
    const res = await apiRequest(server().baseUrl, "POST", "/v1/execute", {
      key: key.secret,
      json: { skill_id: "math.evaluate", params: { expression: "6 * 7" } },
    });
    expect(res.status).toBe(200);
    cookie = await dashboardSession(server().baseUrl, ADMIN_TOKEN);
  });

  it("offers every key and owner in a select while there are few", async () => {
    const executions = await get("/dashboard/executions");
    // "Any", then the one key.
    expect(options(executions, "filter-key_id")).toBe(2);
    expect(executions).toContain(`<option value="${key.id}">the agent (`);
    expect(options(executions, "filter-owner")).toBe(2);
    const usage = await get("/dashboard/usage");
    expect(options(usage, "usage-key")).toBe(2);
  });

  it("past 100 keys, takes a key's id and an owner in fields, and names the rows' keys all the same", async () => {
    const store = openSqliteStore({ dataDir: server().dataDir });
    try {
      for (let i = 0; i < MANY; i++) await store.keys.insert(makeKey({ name: `filler ${i}` }));
    } finally {
      await store.close();
    }
    const executions = await get("/dashboard/executions");
    expect(executions).not.toContain('<select id="filter-key_id"');
    expect(executions).not.toContain("filler");
    expect(executions).toMatch(/<input type="text" id="filter-key_id" name="key_id" value=""/);
    expect(executions).toMatch(/<input type="text" id="filter-owner" name="owner" value=""/);
    expect(executions).toContain('<label for="filter-key_id">Key</label>');
    // The row names its key, read by its id.
    expect(executions).toMatch(/<td class="hide-narrow wrap">the agent<span class="sub">/);

    const filtered = await get(`/dashboard/executions?key_id=${key.id}&owner=acme`);
    expect(filtered.match(/<tr>/g)?.length).toBe(2);
    expect(filtered).toContain(`name="key_id" value="${key.id}"`);
    expect(filtered).toContain('name="owner" value="acme"');
    const none = await get("/dashboard/executions?key_id=key_nosuchkey");
    expect(none).toContain("No executions");
    expect(none).toContain(
      "No key has the id <code>key_nosuchkey</code>: no execution can match the filter.",
    );

    const usage = await get("/dashboard/usage");
    expect(usage).not.toContain('<select id="usage-key"');
    expect(usage).toMatch(/<input type="text" id="usage-key" name="key" value=""/);
    const one = await get(`/dashboard/usage?key=${key.id}`);
    expect(one).toContain("Limits now: the agent");
    const unknown = await get("/dashboard/usage?key=key_nosuchkey");
    expect(unknown).toContain(
      "No key has the id <code>key_nosuchkey</code>: the usage of all keys is shown.",
    );
    expect(unknown).not.toContain("Limits now");
  });
});
