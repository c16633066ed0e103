import type { FastifyInstance } from "fastify";
import { AdminExecutionsQuery } from "../../core/api-schemas.js";
import { EXECUTION_STATUSES, isTerminal } from "../../core/execution/record.js";
import { parseQuery } from "../query-string.js";
import { badge, jsonBlock, milliseconds, time } from "./format.js";
import { html } from "./html.js";
import {
  filterField,
  findKeyHint,
  keyFilterTakesNoSecret,
  keyLabel,
  pickableKeys,
  registerKeyFilterForm,
  unknownKeyNotice,
} from "./key-picker.js";
import { csrfField, page } from "./layout.js";
import type { Dashboard } from "./plugin.js";

type IdParams = { Params: { id: string } };

/** The recent executions of every key, filterable, and each one in detail. */
export function registerExecutionPages(app: FastifyInstance, dashboard: Dashboard): void {
  const { queries, keys, registry } = dashboard.skillport;

  const filter = { path: "/executions", param: "key_id", unfiltered: "Show the executions of all keys" };
  const noSecret = keyFilterTakesNoSecret(keys, filter.param, filter.unfiltered);
  registerKeyFilterForm(app, keys, filter);
  app.get("/executions", { preHandler: noSecret }, async (request, reply) => {
    // Blank filters (an untouched select) mean "any".
    const raw = Object.fromEntries(
      Object.entries((request.query ?? {}) as Record<string, unknown>).filter(([, value]) => value !== ""),
    );
    const query = parseQuery(AdminExecutionsQuery, { limit: 25, ...raw });
    // The keys to filter by (every one, when few enough to list), and those the rows name.
    const [{ data, next_cursor }, pickable] = await Promise.all([queries.listAll(query), pickableKeys(keys)]);
    // The filter's key is read with the rows' keys: one read tells whether it exists.
    const keyNames = await keys.byIds([
      ...data.map((execution) => execution.keyId),
      ...(query.key_id ? [query.key_id] : []),
    ]);
    const unknownKeyId = query.key_id !== undefined && !keyNames.has(query.key_id) ? query.key_id : undefined;
    const select = (name: string, label: string, options: [string, string][], current?: string) =>
      html`<div class="field"><label for="filter-${name}">${label}</label><select id="filter-${name}" name="${name}">
<option value="">Any</option>${options.map(([value, text]) => html`<option value="${value}"${value === current ? html` selected` : ""}>${text}</option>`)}
</select></div>`;
    const keyFilter = pickable
      ? select(
          "key_id",
          "Key",
          pickable.map((key) => [key.id, keyLabel(key)]),
          query.key_id,
        )
      : filterField({
          id: "filter-key_id",
          name: "key_id",
          label: "Key",
          current: query.key_id,
          placeholder: "key_…",
          hint: findKeyHint("A key's id"),
        });
    const ownerFilter = pickable
      ? select(
          "owner",
          "Owner",
          [...new Set(pickable.map((key) => key.owner))].sort().map((owner) => [owner, owner]),
          query.owner,
        )
      : filterField({
          id: "filter-owner",
          name: "owner",
          label: "Owner",
          current: query.owner,
          placeholder: "default",
          hint: "An owner, as API Keys shows it.",
        });
    // A text key field may be given a secret: posted, it never reaches an address (registerKeyFilterForm).
    const filters = html`<form class="panel filters" method="${pickable ? "get" : "post"}" action="/dashboard/executions" aria-label="Filter executions">
${pickable ? "" : csrfField(dashboard.context(request))}
${keyFilter}
${ownerFilter}
${select(
  "skill_id",
  "Skill",
  registry.list().map(({ skill }) => [skill.id, skill.id]),
  query.skill_id,
)}
${select(
  "status",
  "Status",
  EXECUTION_STATUSES.map((status) => [status, status.replace("_", " ")]),
  query.status,
)}
<div class="filter-actions"><button type="submit" class="button">Filter</button><a class="button button-quiet" href="/dashboard/executions">Reset</a></div>
</form>${unknownKeyId !== undefined ? unknownKeyNotice(unknownKeyId, "no execution can match the filter") : ""}`;
    const next = new URLSearchParams(
      Object.entries({ ...raw, cursor: next_cursor ?? "" }).map(([k, v]): [string, string] => [k, String(v)]),
    );
    const rows = data.map((execution) => {
      const { record } = execution;
      const key = keyNames.get(execution.keyId);
      return html`<tr>
<td><a class="strong" href="/dashboard/executions/${record.id}">${record.skill_id}</a><span class="sub mono">${record.id}</span></td>
<td>${badge(record.status)}</td>
<td class="hide-narrow wrap">${key ? key.name : html`<code>${execution.keyId}</code>`}<span class="sub"><span class="visually-hidden">Owner </span>${execution.owner}</span></td>
<td class="num hide-narrow">${milliseconds(record.latency_ms)}</td><td>${time(record.created_at)}</td>
</tr>`;
    });
    const table =
      data.length === 0
        ? html`<section class="panel empty"><h2>No executions</h2><p>${
            unknownKeyId !== undefined
              ? "Nothing matches these filters."
              : html`Nothing matches these filters yet. Executions appear here as agents call <code>POST /v1/execute</code> or MCP tools.`
          }</p></section>`
        : html`<div class="table-wrap panel flush"><table class="table">
<caption class="visually-hidden">Executions, newest first</caption>
<thead><tr><th scope="col">Skill and execution</th><th scope="col">Status</th><th scope="col" class="hide-narrow">Key and owner</th><th scope="col" class="num hide-narrow">Latency</th><th scope="col">Created</th></tr></thead>
<tbody>${rows}</tbody></table></div>
${next_cursor && html`<p class="pager"><a class="button" href="/dashboard/executions?${next.toString()}">Older executions →</a></p>`}`;
    return dashboard.send(
      reply,
      page(
        dashboard.context(request),
        { title: "Executions", section: "executions", lead: "Every key's execution records, newest first." },
        html`${filters}${table}`,
      ),
    );
  });

  app.get<IdParams>("/executions/:id", async (request, reply) => {
    const execution = await queries.getAny(request.params.id);
    const { record } = execution;
    const key = await keys.get(execution.keyId).catch(() => undefined);
    return dashboard.send(
      reply,
      page(
        dashboard.context(request),
        {
          title: record.skill_id,
          section: "executions",
          lead: html`<code>${record.id}</code> ${badge(record.status)}`,
        },
        html`<div class="grid-2">
<section class="panel">
  <h2>Record</h2>
  <dl class="facts">
    <div><dt>Skill</dt><dd><a href="/dashboard/skills/${record.skill_id}">${record.skill_id}</a></dd></div>
    <div><dt>Status</dt><dd>${badge(record.status)}</dd></div>
    <div><dt>Key</dt><dd>${key ? html`<a href="/dashboard/keys/${key.id}">${key.name}</a>` : html`<code>${execution.keyId}</code>`}</dd></div>
    <div><dt>Owner</dt><dd>${execution.owner}</dd></div>
    <div><dt>Mode</dt><dd>${execution.async ? "asynchronous" : "synchronous"}, timeout ${milliseconds(execution.timeoutMs)}</dd></div>
  </dl>
</section>
<section class="panel">
  <h2>Timings</h2>
  <dl class="facts">
    <div><dt>Created</dt><dd>${time(record.created_at)}</dd></div>
    <div><dt>Started</dt><dd>${time(record.started_at, isTerminal(record.status) ? "never" : "not yet")}</dd></div>
    <div><dt>Finished</dt><dd>${time(record.finished_at, "not yet")}</dd></div>
    <div><dt>Latency</dt><dd>${milliseconds(record.latency_ms)}</dd></div>
  </dl>
</section>
</div>
<section class="panel"><h2>Params</h2>${jsonBlock(execution.params, "Params")}</section>
${
  record.error
    ? html`<section class="panel"><h2>Error</h2><p class="alert alert-error"><code>${record.error.code}</code>: ${record.error.message}</p></section>`
    : html`<section class="panel"><h2>Result</h2>${record.result === null ? html`<p class="muted">No result yet.</p>` : jsonBlock(record.result, "Result")}</section>`
}`,
      ),
    );
  });
}
