import { randomUUID } from "node:crypto";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { ApiKey } from "../../core/keys/api-key.js";
import type { Skillport } from "../../core/skillport.js";
import { EmbeddedBackend } from "../../mcp/embedded-backend.js";
import { createMcpServer, type McpServerOptions } from "../../mcp/mcp-server.js";

export interface McpSessionOptions extends McpServerOptions {
  /** A session unused this long is closed. */
  idleMs: number;
  /** Open sessions at most. */
  maxSessions: number;
}

/** One client's MCP session: bound to the key that opened it. */
export interface McpSession {
  readonly transport: StreamableHTTPServerTransport;
  readonly keyId: string;
  /** The key as admitted by the latest request of the session (its scope and limits). */
  key: ApiKey;
  lastUsed: number;
  /** Requests of this session being answered; an active session never expires. */
  active: number;
}

/**
 * The stateful Streamable HTTP sessions of `/mcp`: each has its own transport and MCP
 * server over the embedded core, acting for the key that opened it. Idle sessions
 * expire; their state is memory only, so a client re-initializes after a restart.
 */
export class McpSessions {
  private readonly sessions = new Map<string, McpSession>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly skillport: Skillport,
    private readonly options: McpSessionOptions,
  ) {
    this.sweeper = setInterval(() => this.closeIdle(), Math.min(60_000, options.idleMs));
    this.sweeper.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  /**
   * Makes room for one more session of `keyId`, and says whether there is. When every slot
   * is taken, the key holding the most sessions (the asking key, in a tie) gives up the one
   * it used least recently, unless all of its sessions are answering a request. So one
   * key alone may use every slot, yet cannot keep other keys out by filling them: the
   * client of the closed session is told to initialize again, as after expiry.
   */
  makeRoomFor(keyId: string): boolean {
    if (this.sessions.size < this.options.maxSessions) return true;
    const byKey = new Map<string, McpSession[]>();
    for (const session of this.sessions.values()) {
      const held = byKey.get(session.keyId);
      if (held) held.push(session);
      else byKey.set(session.keyId, [session]);
    }
    let largest = byKey.get(keyId) ?? [];
    for (const held of byKey.values()) if (held.length > largest.length) largest = held;
    const idle = largest.filter((session) => session.active === 0);
    if (idle.length === 0) return false;
    const leastRecent = idle.reduce((a, b) => (b.lastUsed < a.lastUsed ? b : a));
    if (leastRecent.transport.sessionId) this.sessions.delete(leastRecent.transport.sessionId);
    leastRecent.transport.close().catch(() => {});
    return true;
  }

  get(id: string): McpSession | undefined {
    return this.sessions.get(id);
  }

  /** A new session for `key`; it is registered once its `initialize` is answered. */
  async open(key: ApiKey): Promise<McpSession> {
    let session: McpSession | undefined;
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        if (session) this.sessions.set(id, session);
      },
    });
    session = { transport, keyId: key.id, key, lastUsed: Date.now(), active: 0 };
    const opened = session;
    const backend = new EmbeddedBackend(this.skillport, async () => opened.key);
    const { server } = createMcpServer(backend, this.options);
    transport.onclose = () => {
      if (transport.sessionId) this.sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    return session;
  }

  /** Closes every session (shutdown): their event streams end. */
  async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.allSettled([...this.sessions.values()].map((session) => session.transport.close()));
    this.sessions.clear();
  }

  private closeIdle(): void {
    const cutoff = Date.now() - this.options.idleMs;
    for (const session of this.sessions.values()) {
      if (session.active === 0 && session.lastUsed < cutoff) session.transport.close().catch(() => {});
    }
  }
}
