import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { Skillport, SkillportError } from "../../src/client/index.js";
import { type CreatedKey, serverForSuite } from "../contract/harness.js";
import { startTcpProxy } from "../contract/tcp-proxy.js";

const ENV_NAMES = ["SKILLPORT_API_KEY", "SKILLPORT_BASE_URL"] as const;

describe("client configuration", () => {
  const server = serverForSuite();
  let key: CreatedKey;
  const savedEnv = Object.fromEntries(ENV_NAMES.map((name) => [name, process.env[name]]));

  beforeAll(async () => {
    key = await server().createRoomyKey({ scope: "read-only" });
  });
  afterEach(() => {
    for (const name of ENV_NAMES) {
      const saved = savedEnv[name];
      if (saved === undefined) delete process.env[name];
      else process.env[name] = saved;
    }
  });

  it("reads the key from SKILLPORT_API_KEY and the address from SKILLPORT_BASE_URL when none is passed", async () => {
    process.env.SKILLPORT_API_KEY = key.secret;
    process.env.SKILLPORT_BASE_URL = server().baseUrl;
    const client = new Skillport();
    try {
      const found = await client.discover({ query: "evaluate a math expression" });
      expect(found.results.map((result) => result.skill_id)).toContain("math.evaluate");
      // The key used is the read-only one from the environment: execution is refused.
      await expect(
        client.execute({ skill_id: "math.evaluate", params: { expression: "1" } }),
      ).rejects.toMatchObject({
        status: 403,
        code: "insufficient_scope",
      });
    } finally {
      await client.close();
    }
  });

  it("an apiKey passed explicitly wins over the environment", async () => {
    process.env.SKILLPORT_API_KEY = "sk_live_notarealkey";
    const client = new Skillport({ apiKey: key.secret, baseUrl: server().baseUrl });
    try {
      expect((await client.getSkill("math.evaluate")).skill_id).toBe("math.evaluate");
    } finally {
      await client.close();
    }
  });

  it("a base URL that is none, or not http(s), is refused naming where it came from and an example", () => {
    for (const [baseUrl, variable, source] of [
      ["127.0.0.1:8080", undefined, "baseUrl"],
      ["ftp://127.0.0.1", undefined, "baseUrl"],
      [undefined, "localhost:8080", "SKILLPORT_BASE_URL"],
    ] as const) {
      if (variable === undefined) delete process.env.SKILLPORT_BASE_URL;
      else process.env.SKILLPORT_BASE_URL = variable;
      const given = baseUrl ?? variable;
      expect(() => new Skillport({ apiKey: key.secret, ...(baseUrl ? { baseUrl } : {}) })).toThrow(
        `${source} must be an http or https URL such as http://127.0.0.1:8080, not "${given}"`,
      );
    }
  });

  it("a base URL naming the API or MCP endpoint is refused, as `skillport mcp --remote` refuses it, rather than sent to /v1/v1/…", () => {
    for (const [baseUrl, variable, source] of [
      ["http://127.0.0.1:8080/v1", undefined, "baseUrl"],
      ["https://skillport.example.com/mcp/", undefined, "baseUrl"],
      [undefined, "http://127.0.0.1:8080/V1", "SKILLPORT_BASE_URL"],
    ] as const) {
      if (variable === undefined) delete process.env.SKILLPORT_BASE_URL;
      else process.env.SKILLPORT_BASE_URL = variable;
      const given = baseUrl ?? variable;
      expect(() => new Skillport({ apiKey: key.secret, ...(baseUrl ? { baseUrl } : {}) }), given).toThrow(
        new TypeError(
          `${source} must be the server's base URL, such as http://127.0.0.1:8080 (not …/v1 or …/mcp), not "${given}"`,
        ),
      );
    }
    // A prefix a proxy serves the service under is a base URL like any other.
    expect(new Skillport({ apiKey: key.secret, baseUrl: "https://example.com/skillport" })).toBeInstanceOf(
      Skillport,
    );
  });

  it("a base URL holding a user name or password is refused without repeating it: the client would not send them", () => {
    for (const [baseUrl, variable, source] of [
      ["http://admin:hunter2@127.0.0.1:8080", undefined, "baseUrl"],
      ["ftp://admin:hunter2@127.0.0.1", undefined, "baseUrl"],
      [undefined, "https://token@skillport.example.com", "SKILLPORT_BASE_URL"],
    ] as const) {
      if (variable === undefined) delete process.env.SKILLPORT_BASE_URL;
      else process.env.SKILLPORT_BASE_URL = variable;
      expect(() => new Skillport({ apiKey: key.secret, ...(baseUrl ? { baseUrl } : {}) })).toThrow(
        new TypeError(
          `${source} must not hold a user name or password: the client authenticates with the API key alone, and would not send them`,
        ),
      );
    }
  });

  // Regression: the messages repeated the base URL verbatim: a password in one without its
  // scheme (parsed as the scheme `user:`, which the credential check missed), a token in a query.
  it("a base URL's secrets stay out of its messages: a password in one without its scheme, a token in its query or fragment", () => {
    delete process.env.SKILLPORT_BASE_URL;
    const messageOf = (baseUrl: string) => {
      try {
        new Skillport({ apiKey: key.secret, baseUrl });
      } catch (err) {
        return (err as Error).message;
      }
      throw new Error(`${baseUrl} was taken`);
    };
    const credentials =
      "baseUrl must not hold a user name or password: the client authenticates with the API key alone, and would not send them";
    const notHttp = "baseUrl must be an http or https URL such as http://127.0.0.1:8080, not";
    const endpoint =
      "baseUrl must be the server's base URL, such as http://127.0.0.1:8080 (not …/v1 or …/mcp), not";
    for (const [baseUrl, message] of [
      ["user:S3CRET@host:8080", credentials],
      ["user:S3CRET@127.0.0.1:8080/v1", credentials],
      ["http://host:8080/v1?token=S3CRET", `${endpoint} "http://host:8080/v1?…"`],
      ["https://host/mcp#S3CRET", `${endpoint} "https://host/mcp?…"`],
      ["ftp://host/?token=S3CRET", `${notHttp} "ftp://host/?…"`],
      ["host:8080/v1?token=S3CRET", `${notHttp} "host:8080/v1?…"`],
      [
        "http://user:S3CRET@bad host",
        `${notHttp} text that is no URL at all (not repeated here: it may hold a secret)`,
      ],
    ] as const) {
      expect(messageOf(baseUrl), baseUrl).toBe(message);
    }
    process.env.SKILLPORT_BASE_URL = "admin:S3CRET@skillport.example.com";
    expect(() => new Skillport({ apiKey: key.secret })).toThrow(
      new TypeError(credentials.replace("baseUrl", "SKILLPORT_BASE_URL")),
    );
  });

  it("a base URL with a trailing slash works", async () => {
    const client = new Skillport({ apiKey: key.secret, baseUrl: `${server().baseUrl}/` });
    try {
      expect((await client.getSkill("math.evaluate")).skill_id).toBe("math.evaluate");
    } finally {
      await client.close();
    }
  });

  it("without a key (none passed, SKILLPORT_API_KEY unset or empty) fails with missing_api_key before any request", async () => {
    const proxy = await startTcpProxy(server().baseUrl);
    try {
      for (const value of [undefined, ""]) {
        if (value === undefined) delete process.env.SKILLPORT_API_KEY;
        else process.env.SKILLPORT_API_KEY = value;
        let thrown: unknown;
        try {
          new Skillport({ baseUrl: proxy.baseUrl });
        } catch (err) {
          thrown = err;
        }
        expect(thrown).toBeInstanceOf(SkillportError);
        const error = thrown as SkillportError;
        expect(error.code).toBe("missing_api_key");
        expect(error.status).toBeUndefined();
        expect(error.message).toMatch(/SKILLPORT_API_KEY/);
        expect(error.message).toMatch(/skillport keys create/);
      }
      expect(proxy.connections).toBe(0);
    } finally {
      await proxy.close();
    }
  });

  it("takes a key with a line ending (a CRLF .env, a file read whole); refuses one with spaces inside, without showing it", async () => {
    process.env.SKILLPORT_BASE_URL = server().baseUrl;
    for (const [given, viaEnv] of [
      [`${key.secret}\r\n`, true],
      [`${key.secret}\n`, false],
    ] as const) {
      if (viaEnv) process.env.SKILLPORT_API_KEY = given;
      const client = new Skillport(viaEnv ? {} : { apiKey: given });
      try {
        const found = await client.discover({ query: "evaluate a math expression" });
        expect(found.results.length).toBeGreaterThan(0);
      } finally {
        await client.close();
      }
    }
    process.env.SKILLPORT_API_KEY = `${key.secret.slice(0, 12)} ${key.secret.slice(12)}`;
    expect(() => new Skillport()).toThrow(
      new TypeError(
        "SKILLPORT_API_KEY is not an API key: it holds spaces or characters outside printable ASCII",
      ),
    );
    expect(() => new Skillport({ apiKey: `${key.secret}\u00e9` })).toThrow(/^apiKey is not an API key/);
    process.env.SKILLPORT_API_KEY = " \r\n";
    expect(() => new Skillport()).toThrow(expect.objectContaining({ code: "missing_api_key" }));
  });

  it("refuses a base URL that is not http(s)", () => {
    expect(() => new Skillport({ apiKey: key.secret, baseUrl: "ftp://127.0.0.1" })).toThrow(TypeError);
  });

  it("refuses a timeoutMs a timer cannot take (Infinity failed every call), and retries that are not a count", () => {
    for (const timeoutMs of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 31]) {
      expect(() => new Skillport({ apiKey: key.secret, timeoutMs }), String(timeoutMs)).toThrow(RangeError);
    }
    expect(() => new Skillport({ apiKey: key.secret, maxRetries: 1.5 })).toThrow(RangeError);
    expect(new Skillport({ apiKey: key.secret, timeoutMs: 2 ** 31 - 1 })).toBeInstanceOf(Skillport);
  });

  it('refuses a retryRefusals that is not true or false (the string "false" would have meant true)', () => {
    const retryRefusals = "false" as unknown as boolean;
    expect(() => new Skillport({ apiKey: key.secret, retryRefusals })).toThrow(TypeError);
    expect(new Skillport({ apiKey: key.secret, retryRefusals: false })).toBeInstanceOf(Skillport);
  });

  it("refuses options of another type than they take when the client is made, naming each (JavaScript callers)", () => {
    const apiKey = key.secret;
    for (const [options, message] of [
      [{ apiKey: 12345 }, "apiKey must be a string, not number"],
      [{ apiKey, timeoutMs: "3000" }, "timeoutMs must be a number, not string"],
      [{ apiKey, maxRetries: "3" }, "maxRetries must be a number, not string"],
      [{ apiKey, onRetry: "log" }, "onRetry must be a function, not string"],
      [{ apiKey, dispatcher: {} }, "dispatcher must be an undici Dispatcher (an Agent, Pool, ProxyAgent, …)"],
    ] as const) {
      expect(() => new Skillport(options as never), message).toThrow(new TypeError(message));
    }
  });
});
