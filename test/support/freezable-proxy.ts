import { connect, createServer, type Socket } from "node:net";
import { listenOnLoopback } from "./listen.js";

interface Connection {
  client: Socket;
  upstream: Socket;
  /** What the client sent so far (latin1, the first 64 KiB), to pick connections by what they said. */
  sent: string;
  frozen: boolean;
}

export interface FreezableProxy {
  /** The proxy's port on 127.0.0.1. */
  readonly port: number;
  /** `url` with its port replaced by the proxy's. */
  via(url: string): string;
  /**
   * Stops relaying, both ways, on the connections `which` picks (all by default) and on
   * every new one: the sockets stay open and nothing arrives, as with a frozen server or
   * a path that drops packets without a reset.
   */
  freeze(which?: (sent: string) => boolean): number;
  /** Relays again on every connection, and new ones are made through. */
  thaw(): void;
  close(): Promise<void>;
}

/**
 * A TCP proxy on 127.0.0.1 in front of the server `url` names (its host and port) that can
 * go silent without closing anything: a PostgreSQL that stops answering (SIGSTOP, a dead
 * TCP path) for the client behind it alone, without freezing a server other tests share.
 */
export async function startFreezableProxy(url: string): Promise<FreezableProxy> {
  const target = new URL(url);
  const connections = new Set<Connection>();
  let frozenForNew = false;
  const relay = (connection: Connection) => {
    connection.frozen = false;
    connection.client.pipe(connection.upstream);
    connection.upstream.pipe(connection.client);
    connection.client.resume();
    connection.upstream.resume();
  };
  const hold = (connection: Connection) => {
    connection.frozen = true;
    connection.client.unpipe(connection.upstream);
    connection.upstream.unpipe(connection.client);
    connection.client.pause();
    connection.upstream.pause();
  };
  const server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    const connection: Connection = { client, upstream, sent: "", frozen: false };
    connections.add(connection);
    client.on("data", (chunk: Buffer) => {
      if (connection.sent.length < 65_536) connection.sent += chunk.toString("latin1");
    });
    const end = () => {
      connections.delete(connection);
      client.destroy();
      upstream.destroy();
    };
    client.on("error", end).once("close", end);
    upstream.on("error", end).once("close", end);
    if (frozenForNew) hold(connection);
    else relay(connection);
  });
  const ownPort = await listenOnLoopback(server);
  return {
    port: ownPort,
    via(url) {
      const proxied = new URL(url);
      proxied.hostname = "127.0.0.1";
      proxied.port = String(ownPort);
      return proxied.toString();
    },
    freeze(which) {
      let count = 0;
      if (!which) frozenForNew = true;
      for (const connection of connections) {
        if (which && !which(connection.sent)) continue;
        hold(connection);
        count++;
      }
      return count;
    },
    thaw() {
      frozenForNew = false;
      for (const connection of connections) if (connection.frozen) relay(connection);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const { client, upstream } of connections) {
          client.destroy();
          upstream.destroy();
        }
        server.close(() => resolve());
      }),
  };
}
