import { connect, createServer, type Socket } from "node:net";
import { listenOnLoopback } from "../support/listen.js";

/**
 * What the proxy does with one client connection:
 * - `forward`: relays both ways, untouched;
 * - `cut-after-request`: relays the first request to the target, then closes the
 *   client's side without an answer (the server got the request and handles it; the
 *   client sees the connection drop);
 * - `{ respond }`: answers the first request with this raw HTTP response text itself
 *   and closes the connection (the target never sees it);
 * - `{ relayThenRespond }`: relays the first request to the target, then answers it
 *   itself with this raw response, as a gateway that gave up on the target does (the
 *   target handles the request; its answer is thrown away);
 * - `{ cutAfter }`: relays requests one at a time (a keep-alive connection carries
 *   several) until one whose head `cutAfter` picks, then closes the client's side without
 *   its answer, as `cut-after-request` does.
 */
export type ConnectionPlan =
  | "forward"
  | "cut-after-request"
  | { respond: string }
  | { relayThenRespond: string }
  | { cutAfter: (requestHead: string) => boolean };

export interface TcpProxy {
  /** `http://127.0.0.1:PORT`, to use as a client's base URL. */
  readonly baseUrl: string;
  /** Client connections accepted so far. */
  readonly connections: number;
  close(): Promise<void>;
}

/**
 * A TCP proxy on 127.0.0.1 in front of `targetBaseUrl`, deciding per connection (by its
 * index, 0 for the first) what happens to it. Used to drop connections and to send
 * answers the real server never sends (e.g. a chosen `Retry-After`).
 */
export async function startTcpProxy(
  targetBaseUrl: string,
  plan: (connectionIndex: number) => ConnectionPlan = () => "forward",
): Promise<TcpProxy> {
  const target = new URL(targetBaseUrl);
  const sockets = new Set<Socket>();
  let connections = 0;
  const server = createServer((client) => {
    const index = connections++;
    sockets.add(client);
    client.once("close", () => sockets.delete(client));
    client.on("error", () => client.destroy());
    const decided = plan(index);
    if (typeof decided === "object" && "respond" in decided) {
      answerFirstRequest(client, decided.respond);
      return;
    }
    const upstream = connect(Number(target.port), target.hostname);
    sockets.add(upstream);
    upstream.once("close", () => {
      sockets.delete(upstream);
      client.destroy();
    });
    upstream.on("error", () => upstream.destroy());
    client.once("close", () => {
      // After a cut the server's answer is still read and thrown away, so the server
      // sees an ordinary request that completes.
      if (decided === "forward") upstream.destroy();
      else upstream.resume();
    });
    if (decided === "forward") {
      client.pipe(upstream);
      upstream.pipe(client);
      return;
    }
    if (typeof decided === "object" && "cutAfter" in decided) {
      upstream.pipe(client);
      relayRequestsUntil(client, upstream, decided.cutAfter);
      return;
    }
    relayOneRequestThen(client, upstream, () =>
      typeof decided === "object" ? client.end(decided.relayThenRespond) : client.destroy(),
    );
  });
  const port = await listenOnLoopback(server);
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    get connections() {
      return connections;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The head of the first request in `received` and where it ends, once it has all arrived (its `Content-Length` body too). */
function firstRequest(received: Buffer): { head: string; end: number } | undefined {
  const headEnd = received.indexOf("\r\n\r\n");
  if (headEnd < 0) return undefined;
  const head = received.subarray(0, headEnd).toString("latin1");
  const end = headEnd + 4 + Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
  return received.length < end ? undefined : { head, end };
}

/** Waits for a whole request (head and `Content-Length` body) to arrive; resolves with its bytes. */
function onWholeRequest(client: Socket, then: (request: Buffer) => void): void {
  let received = Buffer.alloc(0);
  const onData = (chunk: Buffer) => {
    received = Buffer.concat([received, chunk]);
    if (!firstRequest(received)) return;
    client.off("data", onData);
    then(received);
  };
  client.on("data", onData);
}

/**
 * Relays the client's requests one by one until one whose head `picked` chooses: once that
 * one is handed to the server's socket, the client's side is closed.
 */
function relayRequestsUntil(client: Socket, upstream: Socket, picked: (head: string) => boolean): void {
  let received = Buffer.alloc(0);
  const onData = (chunk: Buffer) => {
    received = Buffer.concat([received, chunk]);
    for (let next = firstRequest(received); next; next = firstRequest(received)) {
      const { head, end } = next;
      const request = received.subarray(0, end);
      received = received.subarray(end);
      if (picked(head)) {
        client.off("data", onData);
        upstream.unpipe(client);
        upstream.write(request, () => client.destroy());
        return;
      }
      upstream.write(request);
    }
  };
  client.on("data", onData);
}

/** Relays one request; once it is handed to the server's socket, before any answer, `then`. */
function relayOneRequestThen(client: Socket, upstream: Socket, then: () => void): void {
  onWholeRequest(client, (request) => upstream.write(request, then));
}

function answerFirstRequest(client: Socket, response: string): void {
  onWholeRequest(client, () => client.end(response));
}

/** A raw HTTP/1.1 response with a JSON body, closing the connection (for `{ respond }`). */
export function rawJsonResponse(status: number, headers: Record<string, string>, body: unknown): string {
  const text = JSON.stringify(body);
  const lines = [
    `HTTP/1.1 ${status} Status ${status}`,
    "content-type: application/json; charset=utf-8",
    `content-length: ${Buffer.byteLength(text)}`,
    "connection: close",
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  return `${lines.join("\r\n")}\r\n\r\n${text}`;
}
