import type { AddressInfo } from "node:net";
import fastifyCookie from "@fastify/cookie";
import fastifyFormbody from "@fastify/formbody";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Skillport } from "../../core/skillport.js";
import { toHttpError, WWW_AUTHENTICATE } from "../error-response.js";
import { loadAssets } from "./assets.js";
import { registerExecutionPages } from "./executions-pages.js";
import { formPageOf } from "./form-page.js";
import { html } from "./html.js";
import { registerKeyPages } from "./keys-pages.js";
import { barePage, type PageContext, page } from "./layout.js";
import { registerOverviewPage } from "./overview-page.js";
import { PageError } from "./page-error.js";
import { CsrfTokens, refuseCrossSite, sessionOf } from "./session.js";
import { signInLinkText } from "./sign-in-link-text.js";
import { dashboardPath, registerSignInPages } from "./sign-in-pages.js";
import { registerSkillPages } from "./skills-pages.js";
import { registerUsagePage } from "./usage-page.js";

declare module "fastify" {
  interface FastifyContextConfig {
    /** A dashboard route open without a session (sign-in, static assets). */
    signedOut?: boolean;
  }
}

export interface DashboardOptions {
  version: string;
  /** Shows a one-time sign-in link to the person running the server (default: stderr). */
  announceSignInLink?: (url: string) => void;
}

/** What the dashboard's page modules share. */
export interface Dashboard {
  skillport: Skillport;
  /** The page context of a signed-in request. */
  context(request: FastifyRequest): PageContext;
  /** Sends a full page as HTML. */
  send(reply: FastifyReply, markup: string, status?: number): FastifyReply;
  /** Announces the next one-time sign-in link after the last one was used. */
  announceNextLink(): void;
  assets: PageContext["assets"];
}

/** The largest body a dashboard request may have: its forms hold a few short fields. */
const DASHBOARD_BODY_LIMIT_BYTES = 64 * 1024;

/**
 * Content-Security-Policy of every dashboard response: scripts, styles and images from
 * this origin only, nothing inline (charts are SVG elements, not styles), no framing.
 */
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join("; ");

/**
 * The dashboard at `/dashboard`: server-rendered pages for an administrator signed in with
 * a session cookie. Everything here is scoped to this plugin (cookies, form bodies, error
 * pages), so `/v1` never parses a form or looks at a cookie, and this surface never looks
 * at an API key. Its first one-time sign-in link is printed by `announceFirstLink`.
 */
export function registerDashboard(
  app: FastifyInstance,
  skillport: Skillport,
  options: DashboardOptions,
): { announceFirstLink(): void } {
  const announce = options.announceSignInLink ?? printSignInLink;
  let baseUrl = "";
  const announceLink = () => {
    const token = skillport.admin.issueSignInToken();
    if (token !== undefined) announce(`${baseUrl}/dashboard/sign-in?token=${token}`);
  };

  app.register(
    async (scope) => {
      await scope.register(fastifyCookie);
      // Its forms are small. Set on every route rather than on the form parser, the limit is
      // the one `request.routeOptions.bodyLimit` gives and a refusal names.
      scope.addHook("onRoute", (route) => {
        route.bodyLimit ??= DASHBOARD_BODY_LIMIT_BYTES;
      });
      await scope.register(fastifyFormbody);
      const assets = loadAssets();
      const csrf = new CsrfTokens();
      const dashboard: Dashboard = {
        skillport,
        assets,
        context(request) {
          const session = request.adminSession;
          if (!session) throw new PageError(401, "Signed out", "Sign in to use the dashboard.");
          return { assets, csrf: csrf.forSession(session), version: options.version };
        },
        send: (reply, markup, status = 200) => {
          // A browser shows the page (its way in is the sign-in form); the header is for the rest.
          if (status === 401) reply.header("www-authenticate", WWW_AUTHENTICATE);
          return reply.code(status).type("text/html; charset=utf-8").send(markup);
        },
        announceNextLink: announceLink,
      };

      scope.addHook("onSend", async (request, reply, payload) => {
        reply.header("content-security-policy", CSP);
        reply.header("x-content-type-options", "nosniff");
        reply.header("x-frame-options", "DENY");
        // The sign-in link carries its token in the URL: never send it on as a referrer.
        reply.header("referrer-policy", "no-referrer");
        reply.header("cross-origin-opener-policy", "same-origin");
        if (!request.url.startsWith("/dashboard/assets/")) reply.header("cache-control", "no-store");
        return payload;
      });
      // The session is checked before the body is read; API keys are never consulted.
      scope.addHook("onRequest", async (request, reply) => {
        if (request.routeOptions.config?.signedOut) return;
        const session = sessionOf(request, skillport.admin);
        if (session) {
          request.adminSession = session;
          return;
        }
        if (request.method === "GET" || request.method === "HEAD") {
          // Back to the page asked for once signed in (a shared link to a key, say).
          const next = dashboardPath(request.url);
          const query = next && next !== "/dashboard" ? `?next=${encodeURIComponent(next)}` : "";
          return reply.redirect(`/dashboard/sign-in${query}`, 303);
        }
        // A form posted after the session ended (signed out in another tab, a restart):
        // signing in again leads back to that form, not to the overview. What was typed
        // was not read (the body never is without a session); dashboard.js refills it.
        const form = formPageOf(request.url);
        throw new PageError(
          401,
          "Signed out",
          "Your session has ended, so this form was not sent. Sign in again to go back to it.",
          {
            href: `/dashboard/sign-in?next=${encodeURIComponent(form)}`,
            label: "Sign in again",
            keepsDraft: true,
          },
        );
      });
      // Every state-changing request carries the session's CSRF token (the sign-in form its own).
      scope.addHook("preHandler", async (request) => {
        if (request.method !== "POST" || request.routeOptions.config?.signedOut) return;
        refuseCrossSite(request);
        if (request.adminSession) csrf.verify(request, request.adminSession);
      });
      scope.setErrorHandler(async (err, request, reply) => renderError(dashboard, request, reply, err));
      scope.setNotFoundHandler(async (request, reply) =>
        renderError(dashboard, request, reply, new PageError(404, "Not found", "There is no such page.")),
      );

      for (const asset of Object.values(assets)) {
        scope.get(
          asset.path.slice("/dashboard".length),
          { config: { signedOut: true } },
          async (_request, reply) =>
            reply
              .type(asset.type)
              .header("cache-control", "public, max-age=31536000, immutable")
              .send(asset.body),
        );
      }
      registerSignInPages(scope, dashboard);
      registerOverviewPage(scope, dashboard);
      registerKeyPages(scope, dashboard);
      registerUsagePage(scope, dashboard);
      registerExecutionPages(scope, dashboard);
      registerSkillPages(scope, dashboard);
    },
    { prefix: "/dashboard" },
  );
  return {
    /**
     * Prints the first link once the server answers requests, not when its port is bound: a
     * server that then fails to start (a damaged store) must not hand out a link to nothing,
     * and a supervisor's restart loop would print a new one at every attempt.
     */
    announceFirstLink() {
      baseUrl = consoleBaseUrl(app.server.address());
      announceLink();
    },
  };
}

/** An error as a page: signed-in ones inside the shell, others on a bare page. */
function renderError(
  dashboard: Dashboard,
  request: FastifyRequest,
  reply: FastifyReply,
  err: unknown,
): FastifyReply {
  let status: number;
  let title: string;
  let message: string;
  let next = { href: "/dashboard", label: "Back to the dashboard" };
  if (err instanceof PageError) {
    ({ status, title, message } = err);
    next = err.next ?? next;
  } else {
    const error = toHttpError(err, dashboard.skillport.errorOf, request);
    status = error.status;
    title = status === 404 ? "Not found" : status >= 500 ? "Something went wrong" : "Request refused";
    message = error.message;
    // As on `/v1`: a bug is logged here; a store outage was logged by `errorOf`.
    if (error.code === "internal_error")
      request.log.error({ err: error.cause ?? error }, "dashboard request failed");
    if (error.retryAfterSeconds !== undefined) reply.header("retry-after", String(error.retryAfterSeconds));
    // A filter or page number typed into the address: the way on is the same page without them.
    const [path, query] = request.url.split("?", 2);
    if (status === 400 && request.method === "GET" && query && path?.startsWith("/dashboard/"))
      next = { href: path, label: "Show this page without its filters" };
  }
  // A signed-out form's page: dashboard.js keeps what was typed for the sign-in that follows.
  const keepDraft = err instanceof PageError && err.next?.keepsDraft === true;
  const body = html`<section class="panel notice" role="alert" ${keepDraft && html`data-keep-draft`}><h2>${title}</h2><p>${message}</p>
<p><a class="button" href="${next.href}">${next.label}</a></p></section>`;
  const markup = request.adminSession
    ? page(dashboard.context(request), { title, section: "overview" }, body)
    : barePage(dashboard.assets, title, body);
  return dashboard.send(reply, markup, status);
}

/** The address to print: a wildcard bind is reached as localhost from the same machine. */
function consoleBaseUrl(address: string | AddressInfo | null): string {
  if (address === null || typeof address === "string") return "";
  const host =
    address.address === "0.0.0.0" || address.address === "::"
      ? "localhost"
      : address.family === "IPv6"
        ? `[${address.address}]`
        : address.address;
  return `http://${host}:${address.port}`;
}

/** Like a notebook server: the link goes to the console, never into the JSON logs. */
function printSignInLink(url: string): void {
  process.stderr.write(signInLinkText(url));
}
