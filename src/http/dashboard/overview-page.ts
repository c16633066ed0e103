import type { FastifyInstance } from "fastify";
import { usageChart } from "./chart.js";
import { badge, integer, milliseconds, time } from "./format.js";
import { html } from "./html.js";
import { page } from "./layout.js";
import type { Dashboard } from "./plugin.js";

/** The first page after sign-in: the state of the service at a glance. */
export function registerOverviewPage(app: FastifyInstance, dashboard: Dashboard): void {
  const { keys, usage, queries, registry } = dashboard.skillport;

  app.get("/", async (request, reply) => {
    const [keyCounts, day, recent] = await Promise.all([
      keys.counts({ kind: "all" }),
      usage.series("day"),
      queries.listAll({ limit: 6 }),
    ]);
    const { active } = keyCounts;
    const anyKey = active + keyCounts.revoked + keyCounts.expired > 0;
    const stat = (label: string, value: string, href: string, name: string) =>
      html`<li class="stat" data-stat="${name}"><a href="${href}"><span class="stat-value">${value}</span><span class="stat-label">${label}</span></a></li>`;
    const gettingStarted = html`<section class="panel getting-started">
  <h2>Get started</h2>
  <ol>
    <li><a href="/dashboard/keys/new">Create an API key</a> and copy its secret.</li>
    <li>Ask for skills: <code>curl -s ${request.protocol}://${request.host}/v1/discover -H "Authorization: Bearer $KEY" -H "Content-Type: application/json" -d '{"query":"send a message"}'</code></li>
    <li>Run one with <code>POST /v1/execute</code>, or connect an MCP client to <code>/mcp</code>.</li>
  </ol>
</section>`;
    const rows = recent.data.map(
      ({
        record,
      }) => html`<tr><td><a href="/dashboard/executions/${record.id}">${record.skill_id}</a></td><td>${badge(record.status)}</td>
<td class="num">${milliseconds(record.latency_ms)}</td><td>${time(record.created_at)}</td></tr>`,
    );
    return dashboard.send(
      reply,
      page(
        dashboard.context(request),
        { title: "Overview", section: "overview" },
        html`<ul class="stats">
  ${stat("active keys", integer(active), "/dashboard/keys", "active")}
  ${stat("requests, last 24 h", integer(day.totals.accepted), "/dashboard/usage?range=day", "accepted")}
  ${stat("limited (429), last 24 h", integer(day.totals.limited), "/dashboard/usage?range=day", "limited")}
  ${stat("refused (revoked/expired key), last 24 h", integer(day.totals.refused), "/dashboard/usage?range=day", "refused")}
  ${stat("skills", integer(registry.size), "/dashboard/skills", "skills")}
</ul>
${!anyKey && gettingStarted}
<section class="panel">${usageChart(day, "Requests per hour, last 24 hours")}</section>
<section class="panel">
  <div class="panel-head"><h2>Recent executions</h2><a href="/dashboard/executions">All executions →</a></div>
  ${
    rows.length === 0
      ? html`<p class="muted">No executions yet.</p>`
      : html`<div class="table-wrap"><table class="table"><thead><tr><th scope="col">Skill</th><th scope="col">Status</th><th scope="col" class="num">Latency</th><th scope="col">Created</th></tr></thead><tbody>${rows}</tbody></table></div>`
  }
</section>`,
      ),
    );
  });
}
