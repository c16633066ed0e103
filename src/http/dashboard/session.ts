import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { AdminAuth, AdminSession } from "../../core/admin/admin-auth.js";
import { randomBase62 } from "../../core/ids.js";
import { PageError } from "./page-error.js";

declare module "fastify" {
  interface FastifyRequest {
    /** The dashboard session of a signed-in administrator (dashboard routes only). */
    adminSession?: AdminSession;
  }
}

/** The session cookie: sent to `/dashboard` only, so it never even reaches `/v1`. */
export const SESSION_COOKIE = "skillport_session";
/** A random value the sign-in form repeats (double submit), for the one form used without a session. */
const SIGN_IN_COOKIE = "skillport_sign_in";
export const CSRF_FIELD = "_csrf";
const COOKIE_PATH = "/dashboard";

/**
 * CSRF tokens for forms: an HMAC of the session id under a key of this process, so a token
 * is valid for one session only and nothing extra is stored. A cross-site page can neither
 * read it (same-origin policy) nor send the session cookie (SameSite=Strict).
 */
export class CsrfTokens {
  private readonly key = randomBytes(32);

  forSession(session: AdminSession): string {
    return createHmac("sha256", this.key).update(session.id).digest("base64url");
  }

  /** Throws 403 unless the request's form carries this session's token. */
  verify(request: FastifyRequest, session: AdminSession): void {
    if (!sameText(formField(request, CSRF_FIELD), this.forSession(session))) throw csrfRefusal();
  }
}

export function setSessionCookie(reply: FastifyReply, session: AdminSession): void {
  reply.setCookie(SESSION_COOKIE, session.id, {
    path: COOKIE_PATH,
    httpOnly: true,
    sameSite: "strict",
    secure: "auto",
    maxAge: Math.floor((session.expiresAtMs - session.createdAtMs) / 1000),
  });
}

export function clearSessionCookie(reply: FastifyReply): void {
  reply.clearCookie(SESSION_COOKIE, {
    path: COOKIE_PATH,
    httpOnly: true,
    sameSite: "strict",
    secure: "auto",
  });
}

/** The live session the request's cookie names, if any. API keys are never looked at here. */
export function sessionOf(request: FastifyRequest, admin: AdminAuth): AdminSession | undefined {
  const id = request.cookies[SESSION_COOKIE];
  return id ? admin.session(id) : undefined;
}

/** Gives the sign-in form its double-submit value (a cookie and a hidden field). */
export function signInFormToken(reply: FastifyReply): string {
  const token = randomBase62(32);
  reply.setCookie(SIGN_IN_COOKIE, token, {
    path: COOKIE_PATH,
    httpOnly: true,
    sameSite: "strict",
    secure: "auto",
    maxAge: 3600,
  });
  return token;
}

/** Throws 403 unless the sign-in form repeats the value of its cookie. */
export function verifySignInForm(request: FastifyRequest): void {
  const cookie = request.cookies[SIGN_IN_COOKIE];
  if (!cookie || !sameText(formField(request, CSRF_FIELD), cookie)) throw csrfRefusal();
}

/**
 * Refuses state-changing requests a browser says come from another site (`Sec-Fetch-Site`,
 * `Origin`): a second line behind the tokens, for browsers that send these headers.
 */
export function refuseCrossSite(request: FastifyRequest): void {
  const site = request.headers["sec-fetch-site"];
  if (site === "cross-site" || site === "same-site") throw csrfRefusal();
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== "null") {
    let host: string | undefined;
    try {
      host = new URL(origin).host;
    } catch {
      host = undefined;
    }
    if (host !== request.headers.host) throw csrfRefusal();
  }
}

/** A text field of a urlencoded form body ("" when absent or repeated). */
export function formField(request: FastifyRequest, name: string): string {
  const body = request.body;
  if (typeof body !== "object" || body === null) return "";
  const value = (body as Record<string, unknown>)[name];
  return typeof value === "string" ? value : "";
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

function csrfRefusal(): PageError {
  return new PageError(
    403,
    "Form refused",
    "This form has expired or did not come from the dashboard. Reload the page and try again.",
  );
}
