import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Skillport } from "../../src/client/index.js";
import { generateSecret } from "../../src/core/keys/secret.js";
import { type Logger, silentLogger } from "../../src/core/logger.js";
import { RemoteBackend } from "../../src/mcp/remote-backend.js";

/** A JSON response: its status, body and headers. */
export type Reply = [status: number, body: unknown, headers?: Record<string, string>];
/** An answer of the fake REST API; `"no answer"` holds the request open, as a hung server does. */
export type Answer = Reply | "no answer";

/** The limit of a key that spent its day: longer than the client waits for, so it gives up at once. */
export const RATE_LIMITED: Reply = [
  429,
  {
    error: {
      code: "rate_limit_exceeded",
      message: "Rate limit exceeded.",
      retry_after: 7200,
      request_id: "r",
    },
  },
  { "retry-after": "7200" },
];

export const NO_EXECUTIONS: Reply = [200, { data: [], next_cursor: null }];
/** A catalog of one skill (only its id matters here). */
export const skillsNamed = (skillId: string): Reply => [
  200,
  { data: [{ skill_id: skillId }], next_cursor: null },
];
/** The answer to a key the server does not take (unknown, revoked or expired). */
export const INVALID_KEY: Reply = [
  401,
  { error: { code: "invalid_api_key", message: "The API key is not valid.", request_id: "r" } },
];

export interface FakeApi {
  baseUrl: string;
  /** Every request received, as `METHOD /path?query`. */
  requests: string[];
  /** Stops listening and drops every connection: requests meet a refused connection. */
  down(): Promise<void>;
  /** Listens again, on the same port. */
  up(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A REST API answering each request (`METHOD /path?query`, numbered from 0) as `route` says,
 * when the answer it gives settles (a promise: a slow server).
 */
export async function fakeApi(
  route: (request: string, index: number) => Answer | Promise<Answer>,
): Promise<FakeApi> {
  const requests: string[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on("end", async () => {
      const request = `${req.method} ${req.url}`;
      const answer = await route(request, requests.push(request) - 1);
      if (answer === "no answer") return;
      const [status, body, headers = {}] = answer;
      res.writeHead(status, { "content-type": "application/json", ...headers });
      res.end(JSON.stringify(body));
    });
  });
  const listen = async (port: number) => {
    server.listen(port, "127.0.0.1");
    await once(server, "listening");
    return (server.address() as AddressInfo).port;
  };
  const stop = () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    return closed;
  };
  const port = await listen(0);
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    down: stop,
    up: async () => {
      await listen(port);
    },
    close: () => (server.listening ? stop() : Promise.resolve()),
  };
}

/** A client of the server at `baseUrl`, with a key of its own, that does not retry. */
export const client = (baseUrl: string) =>
  new Skillport({ apiKey: generateSecret("production"), baseUrl, maxRetries: 0 });

/** The bridge's backend on `remote`, the client of the server at `baseUrl`. */
export const connect = (remote: Skillport, baseUrl: string, logger: Logger = silentLogger) =>
  RemoteBackend.connect(remote, { baseUrl, logger });
