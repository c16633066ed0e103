import { createHash, timingSafeEqual } from "node:crypto";
import type { AccessGate } from "../access.js";
import type { Clock } from "../clock.js";
import type { ServiceError } from "../errors.js";
import { randomBase62 } from "../ids.js";

/** A signed-in administrator of the dashboard. */
export interface AdminSession {
  id: string;
  createdAtMs: number;
  expiresAtMs: number;
}

export interface AdminAuthOptions {
  /** `SKILLPORT_ADMIN_TOKEN`; without it, sign-in is by one-time links (`issueSignInLink`). */
  adminToken?: string;
  /** How long a session lasts from sign-in (default 12 hours). */
  sessionTtlMs?: number;
}

/**
 * How long a one-time sign-in link works after it is printed. The newest link on the
 * console (and so in `docker logs` or journald) must not stay a live credential for ever;
 * opening an expired one has the next one printed.
 */
export const SIGN_IN_LINK_TTL_MS = 15 * 60_000;

/** What `signIn` answers for an expired one-time link: the surface then issues the next. */
export interface ExpiredSignInLink {
  expired: true;
}

/** Sessions kept at most; the oldest are dropped beyond it, so sign-ins cannot fill the memory. */
const MAX_SESSIONS = 1000;

/**
 * Who may use the dashboard, independent of HTTP: an administrator signs in with the
 * configured token, or with a one-time token the server announces on its console (the way
 * notebook servers do), and gets a session that expires. API keys play no part here, and
 * sessions play none on `/v1`: the two credentials never open each other's surface.
 *
 * Sessions live in this process's memory: a restart signs everyone out, and replicas
 * behind a load balancer need sticky sessions for the dashboard.
 */
export class AdminAuth {
  private readonly configuredHash: Buffer | undefined;
  private readonly sessionTtlMs: number;
  private readonly sessions = new Map<string, AdminSession>();
  private oneTime: { hash: Buffer; expiresAtMs: number } | undefined;

  constructor(
    private readonly access: AccessGate,
    private readonly clock: Clock,
    options: AdminAuthOptions = {},
  ) {
    this.configuredHash = options.adminToken === undefined ? undefined : digest(options.adminToken);
    this.sessionTtlMs = options.sessionTtlMs ?? 12 * 3_600_000;
  }

  /** True when an administrator token is configured (sign-in links are not used then). */
  get hasConfiguredToken(): boolean {
    return this.configuredHash !== undefined;
  }

  /**
   * A new one-time sign-in token, replacing any earlier unused one; undefined when a token is
   * configured. It works once, for `SIGN_IN_LINK_TTL_MS`. The surface announces it (e.g.
   * prints a link) and issues the next after use, or when the expired one is presented.
   */
  issueSignInToken(): string | undefined {
    if (this.configuredHash) return undefined;
    const token = randomBase62(32);
    this.oneTime = { hash: digest(token), expiresAtMs: this.clock.now() + SIGN_IN_LINK_TTL_MS };
    return token;
  }

  /**
   * Signs in with `token` from `clientAddress`: a session, the error to show, or
   * `{ expired: true }` for the latest one-time token past its time (it proves its bearer
   * read the console, so it is not counted as a failure). A one-time token works once. Wrong
   * tokens count against the address's limit of failed sign-ins (counted apart from bad API
   * keys), so tokens cannot be guessed at speed.
   */
  signIn(token: string, clientAddress: string): Promise<AdminSession | ExpiredSignInLink | ServiceError> {
    return this.access.attemptSignIn<AdminSession | ExpiredSignInLink>(clientAddress, () => {
      const presented = digest(token);
      if (this.configuredHash && timingSafeEqual(presented, this.configuredHash)) return this.newSession();
      if (this.oneTime && timingSafeEqual(presented, this.oneTime.hash)) {
        const expired = this.oneTime.expiresAtMs <= this.clock.now();
        this.oneTime = undefined;
        return expired ? { expired: true } : this.newSession();
      }
      return undefined;
    });
  }

  /** The live session with this id, or undefined (unknown, signed out or expired). */
  session(id: string): AdminSession | undefined {
    const session = this.sessions.get(id);
    if (!session) return undefined;
    if (session.expiresAtMs <= this.clock.now()) {
      this.sessions.delete(id);
      return undefined;
    }
    return session;
  }

  signOut(id: string): void {
    this.sessions.delete(id);
  }

  private newSession(): AdminSession {
    const now = this.clock.now();
    for (const [id, session] of this.sessions) {
      if (session.expiresAtMs <= now || this.sessions.size >= MAX_SESSIONS) this.sessions.delete(id);
    }
    const session = { id: randomBase62(32), createdAtMs: now, expiresAtMs: now + this.sessionTtlMs };
    this.sessions.set(session.id, session);
    return session;
  }
}

/** Tokens are compared as SHA-256 digests: equal lengths for `timingSafeEqual`, nothing kept in clear. */
function digest(token: string): Buffer {
  return createHash("sha256").update(token).digest();
}
