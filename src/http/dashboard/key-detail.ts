import type { KeyView } from "../../core/keys/key-service.js";
import type { UsageRange } from "../../core/usage/usage-service.js";
import { badge, integer, time } from "./format.js";
import { html } from "./html.js";
import { type PageContext, page } from "./layout.js";
import type { Dashboard } from "./plugin.js";
import { limitsNow, rangeTabs, usagePanel } from "./usage-page.js";

/** One key: its attributes, where it stands against its limits, its usage, and what to do with it. */
export async function keyDetail(
  dashboard: Dashboard,
  ctx: PageContext,
  key: KeyView,
  range: UsageRange,
  /** A short confirmation of what was just done (e.g. an edit), shown above the details. */
  notice?: string,
): Promise<string> {
  const { keys } = dashboard.skillport;
  const status = keys.statusOf(key);
  const active = status === "active";
  const replacement = await keys.replacementOf(key.id);
  const actions = active
    ? html`<a class="button" href="/dashboard/keys/${key.id}/edit">Edit key</a>
<a class="button" href="/dashboard/keys/${key.id}/roll">Roll key</a>
<a class="button button-danger" href="/dashboard/keys/${key.id}/revoke">Revoke</a>`
    : undefined;
  return page(
    ctx,
    {
      title: key.name,
      section: "keys",
      actions,
      lead: html`<code class="key-mask">${key.prefix}…${key.last4}</code> ${badge(status)}`,
    },
    html`${notice && html`<p class="alert" role="status">${notice}</p>`}
${!active && html`<p class="alert alert-error" role="status">This key is ${status}: every request with it is refused.</p>`}
<div class="grid-2">
  <section class="panel">
    <h2>Details</h2>
    <dl class="facts">
      <div><dt>Key id</dt><dd><code>${key.id}</code></dd></div>
      <div><dt>Scope</dt><dd>${key.scope}</dd></div>
      <div><dt>Plan</dt><dd>${key.plan} · ${integer(key.limits.perMinute)}/min, ${integer(key.limits.perDay)}/day</dd></div>
      <div><dt>Environment</dt><dd>${key.environment}</dd></div>
      <div><dt>Owner</dt><dd>${key.owner}</dd></div>
      <div><dt>Created</dt><dd>${time(key.createdAt)}</dd></div>
      <div><dt>Last used</dt><dd>${time(key.lastUsedAt, "never")}</dd></div>
      ${
        // Only a key that stopped working can have one: "is anything still using it?"
        (!active || key.lastRefusedAt) &&
        html`<div><dt>Last refused use</dt><dd>${time(key.lastRefusedAt, "none since it stopped working")}</dd></div>`
      }
      <div><dt>Expires</dt><dd>${time(key.expiresAt, "never")}</dd></div>
      ${key.replaces && html`<div><dt>Replaces</dt><dd><a href="/dashboard/keys/${key.replaces}"><code>${key.replaces}</code></a> (rolled)</dd></div>`}
      ${replacement && html`<div><dt>Replaced by</dt><dd><a href="/dashboard/keys/${replacement.id}"><code>${replacement.id}</code></a> (rolled at ${time(replacement.createdAt)})</dd></div>`}
      ${key.revokedAt && html`<div><dt>Revoked</dt><dd>${time(key.revokedAt)}</dd></div>`}
    </dl>
  </section>
  <section class="panel">
    <h2>Limits now</h2>
    ${await limitsNow(dashboard, key)}
    <p><a href="/dashboard/executions?key_id=${key.id}">Executions of this key →</a></p>
  </section>
</div>
<section class="panel">
  <h2>Usage</h2>
  ${rangeTabs(`/dashboard/keys/${key.id}`, range)}
  ${await usagePanel(dashboard, range, key.id)}
</section>`,
  );
}
