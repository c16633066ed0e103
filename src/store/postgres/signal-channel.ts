import pg from "pg";
import type { Logger } from "../../core/logger.js";
import type { SignalChannel, StoreSignal } from "../../core/ports.js";
import { RepeatedWarning } from "../../core/repeated-warning.js";
import { signalPayload } from "../signal-payload.js";

const RECONNECT_MS = 1_000;
/**
 * How often the listening connection is asked a `select 1` (its deadline is the client's
 * `query_timeout`). A connection that died without a word (dropped by a NAT or a load
 * balancer's idle timeout, a failover) would otherwise look alive for good, and every
 * signal to this replica would be lost; TCP keep-alive finds it too, but only after
 * minutes with the operating system's defaults.
 */
const CHECK_MS = 5_000;

/**
 * Signals over PostgreSQL LISTEN/NOTIFY: one dedicated connection listens (a pooled one
 * cannot: it would be handed to other queries); publishing is a `pg_notify` through the
 * pool. PostgreSQL delivers a notification to every listening session, the sender's
 * included. When the listening connection drops, or stops answering its periodic check,
 * it reconnects after a second, and signals sent meanwhile are lost (the port allows it:
 * followers re-read the store, and runners look for runs ended elsewhere).
 */
export class PostgresSignalChannel implements SignalChannel {
  private readonly listeners = new Set<(signal: StoreSignal) => void>();
  private client: pg.Client | undefined;
  private closed = false;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private checkTimer: NodeJS.Timeout | undefined;
  private checking = false;
  /** When the listening connection was lost (Unix ms); undefined while it listens. */
  private lostAtMs: number | undefined;
  /** A reconnection fails each second while PostgreSQL is out of reach. */
  private readonly cannotListen: RepeatedWarning;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly clientConfig: pg.ClientConfig,
    /** The channel name: one per schema, so deployments (and tests) sharing a database stay apart. */
    private readonly channel: string,
    private readonly logger: Logger,
  ) {
    this.cannotListen = new RepeatedWarning(logger, "could not listen for signals on PostgreSQL; retrying");
  }

  static async open(
    pool: pg.Pool,
    clientConfig: pg.ClientConfig,
    schema: string,
    logger: Logger,
  ): Promise<PostgresSignalChannel> {
    const channel = new PostgresSignalChannel(pool, clientConfig, `skillport_${schema}`.slice(0, 63), logger);
    await channel.listen();
    channel.checkTimer = setInterval(() => void channel.check(), CHECK_MS);
    channel.checkTimer.unref();
    return channel;
  }

  async publish(signal: StoreSignal): Promise<void> {
    await this.pool.query("select pg_notify($1, $2)", [this.channel, signalPayload(signal)]);
  }

  subscribe(listener: (signal: StoreSignal) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    clearInterval(this.checkTimer);
    await this.client?.end().catch(() => undefined);
  }

  private async listen(): Promise<void> {
    const client = new pg.Client(this.clientConfig);
    client.on("notification", (message) => {
      if (message.channel !== this.channel || message.payload === undefined) return;
      let signal: StoreSignal;
      try {
        signal = JSON.parse(message.payload) as StoreSignal;
      } catch {
        return;
      }
      for (const listener of this.listeners) listener(signal);
    });
    client.on("error", (err) => {
      this.logger.warn({ err }, "the signal connection to PostgreSQL failed; reconnecting");
      this.reconnectLater(client);
    });
    client.on("end", () => this.reconnectLater(client));
    try {
      await client.connect();
      await client.query(`listen ${pg.escapeIdentifier(this.channel)}`);
    } catch (err) {
      await client.end().catch(() => undefined);
      throw err;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    if (this.lostAtMs !== undefined) {
      // The warnings said it was lost; this says it is over, and for how long signals may
      // have been missed.
      this.logger.info({ down_ms: Date.now() - this.lostAtMs }, "listening for signals on PostgreSQL again");
      this.lostAtMs = undefined;
      this.cannotListen.reset();
    }
  }

  /** Reconnects when the listening connection does not answer a query within its deadline. */
  private async check(): Promise<void> {
    const client = this.client;
    if (!client || this.checking) return;
    this.checking = true;
    try {
      await client.query("select 1");
    } catch (err) {
      if (this.client === client) {
        this.logger.warn({ err }, "the signal connection to PostgreSQL stopped answering; reconnecting");
        // Ending a client whose query is still waiting destroys its socket at once.
        this.reconnectLater(client);
      }
    } finally {
      this.checking = false;
    }
  }

  private reconnectLater(failed: pg.Client): void {
    if (this.closed || this.client !== failed) return;
    this.client = undefined;
    this.lostAtMs = Date.now();
    failed.end().catch(() => undefined);
    this.listenLater();
  }

  private listenLater(): void {
    this.reconnectTimer = setTimeout(() => {
      this.listen().catch((err: unknown) => {
        this.cannotListen.warn({ err });
        if (!this.closed) this.listenLater();
      });
    }, RECONNECT_MS);
    this.reconnectTimer.unref();
  }
}
