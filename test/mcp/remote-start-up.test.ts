import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { beforeAll, describe, expect, it } from "vitest";
import { CLI_PATH, type CreatedKey, serverForSuite } from "../contract/harness.js";
import { runNode } from "./mcp-clients.js";

// README, "Use it from an assistant": `skillport mcp --remote URL` starts as embedded mode
// does, and says what is wrong when it cannot. Regressions (audit 21, F3 and F6): with
// --remote, a SKILLPORT_MCP_TOOL_TAGS tag no skill has silently gave no skill its own
// tool; a URL without its scheme was refused naming the client library's `baseUrl`, and
// one ending in /mcp or /v1 (or another server's) with a confusing path.
describe("skillport mcp --remote at start-up", () => {
  const server = serverForSuite();
  let key: CreatedKey;
  beforeAll(async () => {
    key = await server().createRoomyKey({ name: "start-up" });
  });

  const mcp = (args: string[], env: Record<string, string> = {}) =>
    runNode([CLI_PATH, "mcp", ...args], {
      env: { SKILLPORT_API_KEY: key.secret, ...env },
      closeStdinAfterMs: 1_500,
    });

  it("refuses a tool tag no skill of the remote catalog has, with embedded mode's message", async () => {
    const env = { SKILLPORT_MCP_TOOL_TAGS: "MATH,nosuchtag" };
    const [embedded, remote] = await Promise.all([
      mcp(["--data-dir", server().dataDir], env),
      mcp(["--remote", server().baseUrl], env),
    ]);
    expect(embedded.code).toBe(1);
    expect(embedded.stderr).toContain(
      'Invalid configuration: SKILLPORT_MCP_TOOL_TAGS: no skill has the tag "nosuchtag"',
    );
    expect({ code: remote.code, stderr: remote.stderr.trim() }).toEqual({
      code: 1,
      stderr: embedded.stderr.trim(),
    });
    // A tag some skill has starts it, and stdin closing stops it.
    const known = await mcp(["--remote", server().baseUrl], { SKILLPORT_MCP_TOOL_TAGS: "math" });
    expect(known.code, known.stderr).toBe(0);
  });

  // Left open in session 26: past SKILLPORT_MCP_MAX_TOOLS, embedded mode named the skills
  // left without a tool and --remote said nothing.
  it("warns of the skills past SKILLPORT_MCP_MAX_TOOLS in the remote catalog, as embedded mode does", async () => {
    const env = { SKILLPORT_MCP_MAX_TOOLS: "20", SKILLPORT_LOG_LEVEL: "warn" };
    const [embedded, remote] = await Promise.all([
      mcp(["--data-dir", server().dataDir], env),
      mcp(["--remote", server().baseUrl], env),
    ]);
    const capWarning = (stderr: string) =>
      stderr
        .split("\n")
        .filter((line) => line.includes("skills_without_tool"))
        .map((line) => {
          const { level, msg, skills_without_tool, max_tools } = JSON.parse(line);
          return { level, msg, skills_without_tool, max_tools };
        });
    expect(embedded.code, embedded.stderr).toBe(0);
    expect(remote.code, remote.stderr).toBe(0);
    const [warning] = capWarning(embedded.stderr);
    expect(warning).toMatchObject({
      level: 40,
      max_tools: 20,
      skills_without_tool: ["util.wait", "units.convert"].sort(),
    });
    expect(warning?.msg).toMatch(/over SKILLPORT_MCP_MAX_TOOLS=20: 2 of them, the last by id, get none/);
    expect(capWarning(remote.stderr)).toEqual([warning]);
  });

  // A value --remote does not take is a usage error like any other option's (exit 2, with
  // the usage), found before the key: it was exit 1, and only once a working key was set.
  it("says --remote must be the server's base URL for one without a scheme or ending in /mcp or /v1", async () => {
    const { host } = new URL(server().baseUrl);
    for (const url of [host, `${server().baseUrl}/mcp`, `${server().baseUrl}/v1/`]) {
      for (const env of [{}, { SKILLPORT_API_KEY: "" }] as Record<string, string>[]) {
        const outcome = await mcp(["--remote", url], env);
        expect(outcome.code).toBe(2);
        expect(outcome.stderr).toBe(
          `skillport mcp: --remote must be the base URL of a skillport server, such as http://127.0.0.1:8080 (not …/mcp or …/v1), not ${JSON.stringify(url)}\n\nUsage:\n  skillport mcp [--data-dir DIR | --remote URL]   MCP over stdio (key in SKILLPORT_API_KEY)\n`,
        );
      }
    }
  });

  // Regression: one without its scheme parsed as the scheme `admin:`, so its password was
  // missed and repeated in the message, as a token in the query of an endpoint URL was.
  it("refuses a --remote URL holding a user name or password without repeating it (the bridge sends only the key), or its query", async () => {
    const { host } = new URL(server().baseUrl);
    for (const url of [
      server().baseUrl.replace("http://", "http://admin:hunter2@"),
      `admin:hunter2@${host}`,
    ]) {
      const outcome = await mcp(["--remote", url]);
      expect(outcome.code, url).toBe(2);
      expect(outcome.stderr, url).toBe(
        "skillport mcp: --remote must not hold a user name or password (the bridge authenticates with SKILLPORT_API_KEY alone, and would not send them)\n\nUsage:\n  skillport mcp [--data-dir DIR | --remote URL]   MCP over stdio (key in SKILLPORT_API_KEY)\n",
      );
    }
    const outcome = await mcp(["--remote", `${server().baseUrl}/mcp?token=hunter2`]);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toContain(`, not "${server().baseUrl}/mcp?…"\n`);
    expect(outcome.stderr).not.toContain("hunter2");
  });

  // The bridge's outages name the server (session 32): at start-up, where its own message
  // names it already, it is named once, with the outage's reason, and no stack.
  it("names the server it cannot use once when the server is down or failing at start-up", async () => {
    const failing = createServer((req, res) => {
      req.resume();
      res
        .writeHead(500, { "content-type": "application/json" })
        .end(
          JSON.stringify({ error: { code: "internal_error", message: "Internal error.", request_id: "r" } }),
        );
    });
    failing.listen(0, "127.0.0.1");
    await once(failing, "listening");
    const down = createServer();
    down.listen(0, "127.0.0.1");
    await once(down, "listening");
    const downUrl = `http://127.0.0.1:${(down.address() as AddressInfo).port}`;
    await new Promise((resolve) => down.close(resolve));
    try {
      const failingUrl = `http://127.0.0.1:${(failing.address() as AddressInfo).port}`;
      const [atFailing, atDown] = await Promise.all([
        mcp(["--remote", failingUrl]),
        mcp(["--remote", downUrl]),
      ]);
      expect(atFailing.code).toBe(1);
      expect(atFailing.stderr).toBe(
        `skillport mcp: cannot use the skillport at ${failingUrl}: Internal error.\n`,
      );
      expect(atDown.code).toBe(1);
      expect(atDown.stderr).toMatch(
        new RegExp(
          `^skillport mcp: cannot use the skillport at ${downUrl}: The connection to ${downUrl} failed: [^\\n]*ECONNREFUSED[^\\n]*\\n$`,
        ),
      );
    } finally {
      await new Promise((resolve) => failing.close(resolve));
    }
  });

  it("asks whether the URL is a skillport server's base URL when its probe meets a 404 or another server", async () => {
    const other = createServer((req, res) => {
      req.resume();
      res.writeHead(404, { "content-type": "text/html" }).end("<h1>Not Found</h1>");
    });
    other.listen(0, "127.0.0.1");
    await once(other, "listening");
    try {
      const otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
      for (const url of [`${server().baseUrl}/api`, otherUrl]) {
        const outcome = await mcp(["--remote", url]);
        expect(outcome.code).toBe(1);
        expect(outcome.stderr).toContain(`skillport mcp: cannot use the skillport at ${url}: `);
        expect(outcome.stderr).toContain(
          "Is it the base URL of a skillport server, such as http://127.0.0.1:8080?",
        );
      }
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
  });
});
