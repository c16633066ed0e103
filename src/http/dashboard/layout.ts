import type { Asset } from "./assets.js";
import { html, type SafeHtml } from "./html.js";
import { CSRF_FIELD } from "./session.js";

export type Section = "overview" | "keys" | "usage" | "executions" | "skills";

const NAV: { section: Section; label: string; path: string }[] = [
  { section: "overview", label: "Overview", path: "/dashboard" },
  { section: "keys", label: "API Keys", path: "/dashboard/keys" },
  { section: "usage", label: "Usage", path: "/dashboard/usage" },
  { section: "executions", label: "Executions", path: "/dashboard/executions" },
  { section: "skills", label: "Skills", path: "/dashboard/skills" },
];

/** What every page of a signed-in administrator needs from the request. */
export interface PageContext {
  assets: Record<"css" | "js" | "icon", Asset>;
  csrf: string;
  version: string;
}

/** A hidden field with the session's CSRF token, for every form that changes something. */
export function csrfField(ctx: PageContext): SafeHtml {
  return html`<input type="hidden" name="${CSRF_FIELD}" value="${ctx.csrf}">`;
}

function head(title: string, assets: PageContext["assets"]): SafeHtml {
  return html`<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${title} · skillport</title>
<link rel="icon" href="${assets.icon.path}" type="image/svg+xml">
<link rel="stylesheet" href="${assets.css.path}">
<script src="${assets.js.path}" defer></script>
</head>`;
}

/** The signed-in shell: skip link, navigation, the page's heading and content, sign-out. */
export function page(
  ctx: PageContext,
  options: { title: string; section: Section; actions?: SafeHtml; lead?: SafeHtml | string },
  content: SafeHtml,
): string {
  const nav = NAV.map(
    (item) =>
      html`<li><a href="${item.path}"${item.section === options.section ? html` aria-current="page"` : ""}>${item.label}</a></li>`,
  );
  return html`<!doctype html>
<html lang="en">
${head(options.title, ctx.assets)}
<body>
<a class="skip-link" href="#main">Skip to content</a>
<div class="shell">
<header class="sidebar">
  <a class="brand" href="/dashboard"><img src="${ctx.assets.icon.path}" alt="" width="28" height="28"><span>skillport</span></a>
  <nav aria-label="Dashboard"><ul>${nav}</ul></nav>
  <form class="sign-out" method="post" action="/dashboard/sign-out" data-no-draft>${csrfField(ctx)}<button type="submit" class="button button-quiet">Sign out</button></form>
</header>
<main id="main" tabindex="-1">
  <div class="page-head">
    <div>
      <h1>${options.title}</h1>
      ${options.lead ? html`<p class="lead">${options.lead}</p>` : ""}
    </div>
    ${options.actions ? html`<div class="page-actions">${options.actions}</div>` : ""}
  </div>
  ${content}
  <footer class="footer">skillport ${ctx.version} · <a href="/v1/openapi.json">OpenAPI</a></footer>
</main>
</div>
</body>
</html>`.markup;
}

/** A page without navigation, for the signed-out (sign-in, errors before sign-in). */
export function barePage(assets: PageContext["assets"], title: string, content: SafeHtml): string {
  return html`<!doctype html>
<html lang="en">
${head(title, assets)}
<body class="bare">
<main id="main" class="bare-main">
  <div class="bare-brand"><img src="${assets.icon.path}" alt="" width="36" height="36"><span>skillport</span></div>
  ${content}
</main>
</body>
</html>`.markup;
}
