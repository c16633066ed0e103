import { describe, expect, it } from "vitest";
import {
  type ConfigError,
  loadConfig,
  loadStoreConfig,
  unknownVariables,
  warnOfUnknownVariables,
} from "../src/config.js";

describe("configuration from the environment", () => {
  it("reads the store's settings alone for the commands that only open the store, by the same rules", () => {
    const env = { SKILLPORT_PORT: "abc", SKILLPORT_DATA_DIR: "/srv/data", SKILLPORT_DATABASE_POOL_SIZE: "4" };
    expect(() => loadConfig(env)).toThrow(/SKILLPORT_PORT/);
    expect(loadStoreConfig(env)).toMatchObject({
      dataDir: "/srv/data",
      databasePoolSize: 4,
      redisDown: "local",
    });
    // The same values as the whole configuration's (one set of rules, in one place).
    const whole = loadConfig({});
    for (const [name, value] of Object.entries(loadStoreConfig({}))) {
      expect(whole[name as keyof typeof whole], name).toEqual(value);
    }
    expect(() => loadStoreConfig({ SKILLPORT_REDIS_URL: "http://redis" })).toThrow(
      /SKILLPORT_REDIS_URL: must be a redis:\/\/ or rediss:\/\/ URL/,
    );
  });

  it("refuses a malformed SKILLPORT_REDIS_URL naming the variable, never its password (audit 26 #5)", () => {
    const malformed = () =>
      loadStoreConfig({ SKILLPORT_REDIS_URL: "redis://:Pw-not-printed@bad host:6379/0" });
    expect(malformed).toThrow(/SKILLPORT_REDIS_URL: is not a valid URL/);
    expect(malformed).not.toThrow(/Pw-not-printed/);
    expect(
      loadStoreConfig({ SKILLPORT_REDIS_URL: "redis://:p%20w@127.0.0.1:6379/0" }).redisUrl,
    ).toBeDefined();
  });

  it("refuses a URL setting that is set but empty in one message saying so, and a wrong one in one message", () => {
    // `SKILLPORT_REDIS_URL=` was refused as a URL of the wrong form and again as a malformed
    // one, which told the operator to percent-encode a password it does not have.
    const problems = (env: Record<string, string>) => {
      try {
        loadStoreConfig(env);
      } catch (err) {
        return (err as ConfigError).problems;
      }
      return [];
    };
    expect(problems({ SKILLPORT_REDIS_URL: "" })).toEqual([
      {
        variable: "SKILLPORT_REDIS_URL",
        message:
          "is set but empty: set a redis:// or rediss:// URL, or unset it (with the SQLite store, limits are then counted in it)",
      },
    ]);
    expect(problems({ SKILLPORT_DATABASE_URL: "" })).toEqual([
      {
        variable: "SKILLPORT_DATABASE_URL",
        message:
          "is set but empty: set a postgres:// URL, or unset it to keep the store in SKILLPORT_DATA_DIR (SQLite)",
      },
    ]);
    expect(problems({ SKILLPORT_REDIS_URL: "localhost:6379" })).toEqual([
      { variable: "SKILLPORT_REDIS_URL", message: "must be a redis:// or rediss:// URL" },
    ]);
  });

  it("takes the defaults for variables that are not set", () => {
    const config = loadConfig({});
    expect(config.port).toBe(8080);
    expect(config.shutdownTimeoutMs).toBe(10_000);
  });

  it("reads whole numbers, blanks around them allowed", () => {
    expect(loadConfig({ SKILLPORT_PORT: "3000" }).port).toBe(3000);
    expect(loadConfig({ SKILLPORT_PORT: " 0 " }).port).toBe(0);
    expect(loadConfig({ SKILLPORT_SHUTDOWN_TIMEOUT_MS: "0" }).shutdownTimeoutMs).toBe(0);
  });

  it("refuses an empty or blank number instead of reading it as 0 (a random port)", () => {
    for (const value of ["", " "]) {
      expect(() => loadConfig({ SKILLPORT_PORT: value })).toThrow(/SKILLPORT_PORT: must be a whole number/);
    }
    expect(() => loadConfig({ SKILLPORT_SHUTDOWN_TIMEOUT_MS: "" })).toThrow(/SKILLPORT_SHUTDOWN_TIMEOUT_MS/);
  });

  it("refuses numbers in other notations and out of range, naming the variable", () => {
    for (const value of ["0x1f90", "8e3", "80.5", "-1", "abc"]) {
      expect(() => loadConfig({ SKILLPORT_PORT: value }), value).toThrow(/SKILLPORT_PORT/);
    }
    expect(() => loadConfig({ SKILLPORT_PORT: "65536" })).toThrow(/SKILLPORT_PORT/);
  });

  it("trims the admin token as the sign-in form trims what is pasted, and refuses one of blanks", () => {
    const token = "0123456789abcdef0123";
    expect(loadConfig({ SKILLPORT_ADMIN_TOKEN: `${token}\n` }).adminToken).toBe(token);
    expect(loadConfig({ SKILLPORT_ADMIN_TOKEN: ` ${token} ` }).adminToken).toBe(token);
    expect(() => loadConfig({ SKILLPORT_ADMIN_TOKEN: " ".repeat(20) })).toThrow(/SKILLPORT_ADMIN_TOKEN/);
  });

  it("reads the trusted proxies: true is the connected one, a number of hops, or their addresses", () => {
    const trust = (value: string) => loadConfig({ SKILLPORT_TRUST_PROXY: value }).trustProxy;
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(trust("false")).toBe(false);
    expect(trust("0")).toBe(false);
    expect(trust("true")).toBe(1);
    expect(trust("1")).toBe(1);
    expect(trust("2")).toBe(2);
    expect(trust("10.0.0.0/8, 127.0.0.1,::1,fd00::/8")).toEqual([
      "10.0.0.0/8",
      "127.0.0.1",
      "::1",
      "fd00::/8",
    ]);
    for (const value of [
      "yes",
      "https://proxy.example",
      "10.0.0.0/33",
      "::1/129",
      "10.0.0.1/8/1",
      "proxy.local",
      "",
      "100",
    ]) {
      expect(() => trust(value), value).toThrow(
        /SKILLPORT_TRUST_PROXY: must be true, false, a number of proxy hops/,
      );
    }
  });

  it("takes host names and origins for /mcp, and refuses a URL where a host name belongs", () => {
    const mcp = (env: Record<string, string>) => loadConfig(env).mcp;
    expect(mcp({ SKILLPORT_ALLOWED_HOSTS: "api.example.com, example.com:8443,[::1]" }).allowedHosts).toEqual([
      "api.example.com",
      "example.com:8443",
      "[::1]",
    ]);
    expect(
      mcp({ SKILLPORT_ALLOWED_ORIGINS: "https://app.example.com,http://localhost:5173/" }).allowedOrigins,
    ).toHaveLength(2);
    for (const host of ["https://foo.example", "foo.example/mcp", "user@foo.example", "foo example"]) {
      expect(() => mcp({ SKILLPORT_ALLOWED_HOSTS: host }), host).toThrow(
        /SKILLPORT_ALLOWED_HOSTS: must be host names/,
      );
    }
    expect(
      mcp({
        SKILLPORT_ALLOWED_ORIGINS: "chrome-extension://abcdefghijklmnop,vscode-webview://x,tauri://localhost",
      }).allowedOrigins,
    ).toHaveLength(3);
    for (const origin of [
      "app.example.com",
      "https://app.example.com/path",
      "https://user@app.example.com",
    ]) {
      expect(() => mcp({ SKILLPORT_ALLOWED_ORIGINS: origin }), origin).toThrow(
        /SKILLPORT_ALLOWED_ORIGINS: must be origins/,
      );
    }
  });

  it("says the bounds of a number out of range, not that it is no number", () => {
    expect(() => loadConfig({ SKILLPORT_PORT: "70000" })).toThrow(
      /SKILLPORT_PORT: must be at most 65535(;|$)/,
    );
    expect(() => loadConfig({ SKILLPORT_PORT: "70000" })).not.toThrow(/whole number/);
    expect(() => loadConfig({ SKILLPORT_WORKER_THREADS: "0" })).toThrow(
      /SKILLPORT_WORKER_THREADS: must be at least 1(;|$)/,
    );
    expect(() => loadConfig({ SKILLPORT_PORT: "-1" })).toThrow(/SKILLPORT_PORT: must be at least 0(;|$)/);
  });

  // Regression (audit 22, operations #7): a misspelt variable left its setting at the default
  // without a word.
  it("names each SKILLPORT_ variable nothing reads, with the closest known name", () => {
    const env = {
      SKILLPORT_RETENTON_DAYS: "7",
      SKILLPORT_LOGLEVEL: "debug",
      SKILLPORT_RETENTION_DAYS: "7",
      SKILLPORT_API_KEY: "sk_live_x",
      SKILLPORT_BASE_URL: "http://127.0.0.1:8080",
      SKILLPORT_TEST_REDIS_URL: "redis://127.0.0.1",
      HOME: "/root",
    };
    expect(unknownVariables(env)).toEqual([
      { name: "SKILLPORT_LOGLEVEL", closest: "SKILLPORT_LOG_LEVEL" },
      { name: "SKILLPORT_RETENTON_DAYS", closest: "SKILLPORT_RETENTION_DAYS" },
    ]);
    const warnings: string[] = [];
    const logger = { warn: (_fields: object, message?: string) => warnings.push(message ?? "") };
    warnOfUnknownVariables(logger as never, env);
    expect(warnings).toEqual([
      "SKILLPORT_LOGLEVEL is not a skillport setting (ignored); did you mean SKILLPORT_LOG_LEVEL?",
      "SKILLPORT_RETENTON_DAYS is not a skillport setting (ignored); did you mean SKILLPORT_RETENTION_DAYS?",
    ]);
  });
});
