import type { HttpServerOptions } from "../../src/http/server.js";

/** What an in-process test server is built with: small limits, `/mcp` on loopback, no sign-in links printed. */
export function testHttpServerOptions(logger: HttpServerOptions["logger"]): HttpServerOptions {
  return {
    logger,
    maxBodyBytes: 1 << 20,
    requestTimeoutMs: 10_000,
    trustProxy: false,
    version: "test",
    announceSignInLink: () => {},
    mcp: {
      maxTools: 40,
      tags: [],
      idleMs: 60_000,
      maxSessions: 10,
      bindHost: "127.0.0.1",
      allowedHosts: [],
      allowedOrigins: [],
    },
  };
}
