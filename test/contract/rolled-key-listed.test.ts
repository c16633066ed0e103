import { describe, expect, it } from "vitest";
import { apiRequest, dashboardSession, runCli, serverForSuite } from "./harness.js";

const ADMIN_TOKEN = "contract-admin-token-0123456789";

// Regression (audit 23, new user #8): after `keys roll`, `keys list` and the dashboard's key
// list showed the old key, still in its grace period, and its replacement as two identical
// `active` rows: nothing said which one stops working, or when.
describe("a rolled key in its grace period, listed", () => {
  const server = serverForSuite({ env: { SKILLPORT_ADMIN_TOKEN: ADMIN_TOKEN } });

  it("keys list and the dashboard show the old key's end, and none for its replacement", async () => {
    const old = await server().createKey({ name: "rolled-listed" });
    const rolled = await runCli([
      "keys",
      "roll",
      old.id,
      "--grace",
      "2h",
      "--json",
      "--data-dir",
      server().dataDir,
    ]);
    expect(rolled.code, rolled.stderr).toBe(0);
    const { id: newId, previous } = JSON.parse(rolled.stdout) as {
      id: string;
      previous: { expires_at: string };
    };

    const listed = await runCli(["keys", "list", "--data-dir", server().dataDir]);
    expect(listed.code, listed.stderr).toBe(0);
    const lines = listed.stdout.split("\n");
    const header = lines.find((line) => line.startsWith("ID "));
    expect(header).toMatch(/\bSTATUS +EXPIRES +LAST USED\b/);
    const rowOf = (id: string) => lines.find((line) => line.startsWith(id)) ?? "";
    expect(rowOf(old.id)).toMatch(new RegExp(`\\bactive +${previous.expires_at.replaceAll(".", "\\.")} `));
    expect(rowOf(newId)).toMatch(/\bactive +never +never\b/);

    const page = await apiRequest(server().baseUrl, "GET", "/dashboard/keys", {
      headers: { cookie: await dashboardSession(server().baseUrl, ADMIN_TOKEN) },
    });
    expect(page.status).toBe(200);
    const rowsOf = (id: string) =>
      page.text.split("<tr>").find((row) => row.includes(`href="/dashboard/keys/${id}"`)) ?? "";
    expect(rowsOf(old.id)).toContain(`until <time datetime="${previous.expires_at}"`);
    expect(rowsOf(newId)).not.toContain("until");
  });
});
