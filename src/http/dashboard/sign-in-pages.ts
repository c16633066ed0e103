import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { AdminSession } from "../../core/admin/admin-auth.js";
import { ServiceError } from "../../core/errors.js";
import { html } from "./html.js";
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

  const form = (reply: FastifyReply, notice?: { text: string; error: boolean }) => {
    const formToken = signInFormToken(reply);
    const hint = admin.hasConfiguredToken
      ? "Enter the administrator token (SKILLPORT_ADMIN_TOKEN)."
      : "Open the one-time link that skillport serve printed on its console, or paste its token here.";
    return barePage(
      dashboard.assets,
      "Sign in",
      html`<section class="panel sign-in" aria-labelledby="sign-in-title">
  <h1 id="sign-in-title">Sign in to the dashboard</h1>
  <p class="muted">${hint}</p>
  ${notice && html`<p class="${notice.error ? "alert alert-error" : "alert"}" role="${notice.error ? "alert" : "status"}">${notice.text}</p>`}
  <form method="post" action="/dashboard/sign-in" class="stack">
    <input type="hidden" name="${CSRF_FIELD}" value="${formToken}">
    <label for="token">Token</label>
    <input id="token" name="token" type="password" autocomplete="current-password" required autofocus spellcheck="false">
    <button type="submit" class="button button-primary">Sign in</button>
  </form>
  <p class="fine-print">API keys do not open the dashboard; they are for the API only.</p>
</section>`,
    );
  };

  const signIn = async (request: FastifyRequest, reply: FastifyReply, token: string) => {
    const outcome = await admin.signIn(token, request.ip);
    if (outcome instanceof ServiceError) {
      if (outcome.retryAfterSeconds !== undefined)
        reply.header("retry-after", String(outcome.retryAfterSeconds));
      return dashboard.send(
        reply,
        form(reply, { text: outcome.message, error: true }),
        outcome.status === 429 ? 429 : 401,
      );
    }
    const session: AdminSession = outcome;
    setSessionCookie(reply, session);
    // A one-time link is spent: print the next one for the next sign-in.
    if (!admin.hasConfiguredToken) dashboard.announceNextLink();
    return reply.redirect("/dashboard", 303);
  };

  app.get<{ Querystring: { token?: string; signed_out?: string } }>(
    "/sign-in",
    { config: { signedOut: true } },
    async (request, reply) => {
      const { token, signed_out } = request.query;
      if (typeof token === "string" && token !== "") return signIn(request, reply, token);
      if (sessionOf(request, admin)) return reply.redirect("/dashboard", 303);
      const notice = signed_out === undefined ? undefined : { text: "You are signed out.", error: false };
      return dashboard.send(reply, form(reply, notice));
    },
  );

  app.post("/sign-in", { config: { signedOut: true } }, async (request, reply) => {
    refuseCrossSite(request);
    verifySignInForm(request);
    return signIn(request, reply, pastedToken(formField(request, "token")));
  });

  app.post("/sign-out", async (request, reply) => {
    if (request.adminSession) admin.signOut(request.adminSession.id);
    clearSessionCookie(reply);
    return reply.redirect("/dashboard/sign-in?signed_out=1", 303);
  });
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
