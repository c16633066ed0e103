import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { KeyView } from "../../core/keys/key-service.js";
import type { RateLimitStatus } from "../../core/limits/rate-limit.js";
import { USAGE_RANGES, type UsageRange } from "../../core/usage/usage-service.js";
import { usageChart } from "./chart.js";
import { duration, integer, seconds } from "./format.js";
import { html, type SafeHtml } from "./html.js";
import {
  findKeyHint,
  keyFilterTakesNoSecret,
  keyLabel,
  pickableKeys,
  registerKeyFilterForm,
  unknownKeyNotice,
} from "./key-picker.js";
import { csrfField, page } from "./layout.js";
import type { Dashboard } from "./plugin.js";

const RANGE_LABELS: Record<UsageRange, { tab: string; caption: string }> = {
  hour: { tab: "Last hour", caption: "Requests per minute, last hour" },
  day: { tab: "Last 24 hours", caption: "Requests per hour, last 24 hours" },
  month: { tab: "Last 30 days", caption: "Requests per day, last 30 days" },
};

const RangeQuery = z.object({ range: z.enum(Object.keys(USAGE_RANGES) as [UsageRange]).catch("hour") });

/** The `range` query parameter; the last hour unless another known range is asked for. */
export function parseRange(query: unknown): UsageRange {
  return RangeQuery.parse(query ?? {}).range;
}

/** Tabs between the ranges, keeping the other query parameters (e.g. the key). */
export function rangeTabs(path: string, current: UsageRange, keep: Record<string, string> = {}): SafeHtml {
  return html`<nav class="tabs" aria-label="Time range">${(Object.keys(USAGE_RANGES) as UsageRange[]).map(
    (range) => {
      const params = new URLSearchParams({ ...keep, range });
      return html`<a href="${path}?${params.toString()}"${range === current ? html` aria-current="true"` : ""}>${RANGE_LABELS[range].tab}</a>`;
    },
  )}</nav>`;
}

/** A usage chart of one key, or of every key, for a range. */
export async function usagePanel(dashboard: Dashboard, range: UsageRange, keyId?: string): Promise<SafeHtml> {
  const series = await dashboard.skillport.usage.series(range, keyId);
  return usageChart(series, RANGE_LABELS[range].caption);
}

/**
 * Where a key stands now against its limits: each window of its plan for a key that works;
 * for a revoked or expired one, that it gets no request at all (its windows' "60 left" would
 * read as requests it may still make).
 */
export async function limitsNow(dashboard: Dashboard, key: KeyView): Promise<SafeHtml> {
  const status = dashboard.skillport.keys.statusOf(key);
  if (status !== "active")
    return html`<p class="muted">None: the key is ${status}, so every request with it is refused.</p>`;
  return limitMeters(key, await dashboard.skillport.access.limitStatus(key));
}

/** Where a key stands now in each window of its plan. */
function limitMeters(key: KeyView, status: RateLimitStatus): SafeHtml {
  const now = Date.now() / 1000;
  return html`<ul class="meters">${status.windows.map((window) => {
    const used = window.limit - window.remaining;
    const name =
      window.windowSeconds === 60
        ? "This minute"
        : window.windowSeconds === 86_400
          ? "Today (UTC)"
          : seconds(window.windowSeconds);
    const resetIn = Math.max(0, Math.ceil(window.resetAtSeconds - now));
    const id = `meter-${key.id}-${window.windowSeconds}`;
    return html`<li class="meter-row">
  <div class="meter-label"><label for="${id}">${name}</label><span><strong>${integer(used)}</strong> of ${integer(window.limit)} used</span></div>
  <meter id="${id}" min="0" max="${window.limit}" value="${used}" low="${window.limit * 0.75}" high="${window.limit * 0.9}" optimum="0">${integer(used)} of ${integer(window.limit)}</meter>
  <p class="hint">${integer(window.remaining)} left · resets in ${duration(resetIn)}</p>
</li>`;
  })}</ul>`;
}

/** Usage of every key, or of one chosen key with its position against its plan's windows. */
export function registerUsagePage(app: FastifyInstance, dashboard: Dashboard): void {
  const filter = { path: "/usage", param: "key", unfiltered: "Show the usage of all keys" };
  const noSecret = keyFilterTakesNoSecret(dashboard.skillport.keys, filter.param, filter.unfiltered);
  registerKeyFilterForm(app, dashboard.skillport.keys, filter);
  app.get<{ Querystring: { key?: string } }>("/usage", { preHandler: noSecret }, async (request, reply) => {
    const range = parseRange(request.query);
    const { keys } = dashboard.skillport;
    const asked = request.query.key || undefined;
    const [pickable, named] = await Promise.all([pickableKeys(keys), keys.byIds(asked ? [asked] : [])]);
    const chosen = asked === undefined ? undefined : named.get(asked);
    // Every key to choose from when few enough to list; else a field for a key's id.
    const choice = pickable
      ? html`<select id="usage-key" name="key" data-autosubmit>
    <option value="">All keys</option>
    ${pickable.map((key) => html`<option value="${key.id}"${key.id === chosen?.id ? html` selected` : ""}>${keyLabel(key)}</option>`)}
  </select>`
      : html`<input type="text" id="usage-key" name="key" value="${asked ?? ""}" placeholder="key_… (empty: all keys)" aria-describedby="usage-key-hint" autocomplete="off" spellcheck="false"><span class="hint" id="usage-key-hint">${findKeyHint("A key's id")}</span>`;
    // A text field may be given a secret: posted, it never reaches an address (registerKeyFilterForm).
    const picker = html`<form class="toolbar" method="${pickable ? "get" : "post"}" action="/dashboard/usage">
  ${pickable ? "" : csrfField(dashboard.context(request))}
  <label for="usage-key">Key</label>
  ${choice}
  <input type="hidden" name="range" value="${range}">
  <button type="submit" class="button">Show</button>
</form>${
      asked !== undefined && chosen === undefined
        ? unknownKeyNotice(asked, "the usage of all keys is shown")
        : ""
    }`;
    const limits = chosen
      ? html`<section class="panel"><h2>Limits now: ${chosen.name}</h2>${await limitsNow(dashboard, chosen)}</section>`
      : "";
    return dashboard.send(
      reply,
      page(
        dashboard.context(request),
        {
          title: "Usage",
          section: "usage",
          lead: "Requests admitted, refused with 429, and refused because the key was revoked or had expired, per key or for all keys. Counts are collected off the request path and written every few seconds.",
        },
        html`${picker}
<section class="panel">
  ${rangeTabs("/dashboard/usage", range, chosen ? { key: chosen.id } : {})}
  ${await usagePanel(dashboard, range, chosen?.id)}
</section>
${limits}`,
      ),
    );
  });
}
