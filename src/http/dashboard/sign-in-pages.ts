import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { type AdminSession, SIGN_IN_LINK_TTL_MS } from "../../core/admin/admin-auth.js";
import { ServiceError } from "../../core/errors.js";
import { looksLikeSecret } from "../../core/keys/secret.js";
import { html, type SafeHtml } from "./html.js";
import { barePage } from "./layout.js";
import type { Dashboard } from "./plugin.js";
import {
  CSRF_FIELD,
  clearSessionCookie,
  formField,
  refuseCrossSite,
  sessionOf,
  setSessionCookie,
  signInFormToken,
  verifySignInForm,
} from "./session.js";

/**
 * Sign-in with the printed one-time link (GET with `token`, the way notebook servers do) or
 * by pasting a token into the form (POST), and sign-out.
 */
export function registerSignInPages(app: FastifyInstance, dashboard: Dashboard): void {
  const { admin } = dashboard.skillport;

  const form = (reply: FastifyReply, notice?: { text: string | SafeHtml; error: boolean }, next?: string) => {
    const formToken = signInFormToken(reply);
    const hint = admin.hasConfiguredToken
      ? "Enter the administrator token (SKILLPORT_ADMIN_TOKEN)."
      : `Open the one-time link that skillport serve printed on its console, or paste its token here. A link works once, for ${LINK_MINUTES} minutes; opening an expired one prints the next.`;
    return barePage(
      dashboard.assets,
      "Sign in",
      html`<section class="panel sign-in" aria-labelledby="sign-in-title">
  <h1 id="sign-in-title">Sign in to the dashboard</h1>
  <p class="muted">${hint}</p>
  ${notice && html`<p class="${notice.error ? "alert alert-error" : "alert"}" role="${notice.error ? "alert" : "status"}">${notice.text}</p>`}
  <form method="post" action="/dashboard/sign-in" class="stack" data-no-draft>
    <input type="hidden" name="${CSRF_FIELD}" value="${formToken}">
    ${next && html`<input type="hidden" name="next" value="${next}">`}
    <label for="token">Token</label>
    <input id="token" name="token" type="password" autocomplete="current-password" required autofocus spellcheck="false">
    <button type="submit" class="button button-primary">Sign in</button>
  </form>
  <p class="fine-print">API keys do not open the dashboard; they are for the API only.</p>
</section>`,
    );
  };

  /** Signs in and goes on to `next` (the page that asked for a session), else the overview. */
  const signIn = async (request: FastifyRequest, reply: FastifyReply, token: string, next?: string) => {
    const outcome = await admin.signIn(token, request.ip);
    if (outcome instanceof ServiceError) {
      if (outcome.retryAfterSeconds !== undefined)
        reply.header("retry-after", String(outcome.retryAfterSeconds));
      return dashboard.send(
        reply,
        form(reply, { text: refusalText(outcome), error: true }, next),
        outcome.status === 429 ? 429 : 401,
      );
    }
    if ("expired" in outcome) {
      // Its bearer read the console: the next link goes there, and the page says so.
      dashboard.announceNextLink();
      const text = `This sign-in link has expired: a link works for ${LINK_MINUTES} minutes. A new one has just been printed on the server's console (where skillport serve writes its stderr): open it, or paste its token here.`;
      return dashboard.send(reply, form(reply, { text, error: true }, next), 401);
    }
    const session: AdminSession = outcome;
    setSessionCookie(reply, session);
    // A one-time link is spent: print the next one for the next sign-in.
    if (!admin.hasConfiguredToken) dashboard.announceNextLink();
    return reply.redirect(next ?? "/dashboard", 303);
  };

  app.get<{ Querystring: { token?: string; signed_out?: string; next?: string } }>(
    "/sign-in",
    { config: { signedOut: true } },
    async (request, reply) => {
      const { token, signed_out } = request.query;
      const next = dashboardPath(request.query.next);
      if (typeof token === "string" && token !== "") {
        // The configured token never expires: in an address it would stay in browser history
        // and proxy logs as a lasting credential. Only a one-time link's token, spent once
        // used, may come that way.
        if (admin.hasConfiguredToken) {
          const text = "Enter the administrator token in this form: a token in an address is not accepted.";
          return dashboard.send(reply, form(reply, { text, error: true }, next), 400);
        }
        return signIn(request, reply, token, next);
      }
      // Signed in already: the form says so rather than redirecting, since a replica without
      // this session (no sticky routing) would redirect back here, and round again.
      const notice = sessionOf(request, admin)
        ? { text: "You are signed in.", error: false }
        : signed_out === undefined
          ? undefined
          : { text: "You are signed out.", error: false };
      return dashboard.send(reply, form(reply, notice, next));
    },
  );

  app.post("/sign-in", { config: { signedOut: true } }, async (request, reply) => {
    refuseCrossSite(request);
    verifySignInForm(request);
    const next = dashboardPath(formField(request, "next"));
    return signIn(request, reply, pastedToken(formField(request, "token")), next);
  });

  app.post("/sign-out", async (request, reply) => {
    if (request.adminSession) admin.signOut(request.adminSession.id);
    clearSessionCookie(reply);
    return reply.redirect("/dashboard/sign-in?signed_out=1", 303);
  });
}

const LINK_MINUTES = SIGN_IN_LINK_TTL_MS / 60_000;

/**
 * A refused sign-in as the page says it: a limited one with how long to wait (the
 * Retry-After header is for programs; a person reads the page) and what works meanwhile.
 */
function refusalText(refusal: ServiceError): string | SafeHtml {
  if (refusal.code !== "rate_limit_exceeded") return refusal.message;
  const seconds = refusal.retryAfterSeconds ?? 1;
  const wait = `${seconds} ${seconds === 1 ? "second" : "seconds"}`;
  return html`${refusal.message} Try again in ${wait}. Sessions already signed in go on, and <code>skillport keys …</code> on the server still works.`;
}

/**
 * The token as typed or pasted: a selection copied from a terminal often takes a space or
 * the line's end with it, and the page says to paste the printed link's token, so the
 * whole link pasted gives its token too. A refused sign-in counts against the address.
 */
function pastedToken(field: string): string {
  const text = field.trim();
  if (!/^https?:\/\//i.test(text)) return text;
  try {
    return new URL(text).searchParams.get("token") ?? text;
  } catch {
    return text;
  }
}

/** Half of a UTF-16 pair without the other (with `u`, a whole pair is one code point). */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/**
 * `path` when it is a dashboard page to return to after signing in (it came through an
 * address or a form, so anything else is ignored: never another site, nor a secret).
 */
export function dashboardPath(path: unknown): string | undefined {
  if (typeof path !== "string" || path.length > 2000 || LONE_SURROGATE.test(path) || looksLikeSecret(path)) {
    return undefined;
  }
  if (!/^\/dashboard(?:[/?][^\s\\]*)?$/.test(path) || path.includes("//")) return undefined;
  // Its dot segments resolved as the browser will (`/dashboard/../v1`, `%2e%2e` too): still a dashboard page.
  if (!/^\/dashboard(?:\/|$)/.test(new URL(path, "http://dashboard.invalid").pathname)) return undefined;
  // A redirect's Location takes ASCII only (a `✓` in it threw, and the sign-in answered 500):
  // other characters are percent-encoded, as the browser would have sent them.
  return path.replace(/[^\x21-\x7e]+/g, encodeURI);
}
