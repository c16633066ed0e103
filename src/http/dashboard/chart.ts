import type { UsagePoint } from "../../core/ports.js";
import type { UsageSeries } from "../../core/usage/usage-service.js";
import { integer } from "./format.js";
import { html, type SafeHtml } from "./html.js";

/** Each bucket is this wide in the SVG's own units; the SVG stretches to the panel's width. */
const SLOT = 10;
const HEIGHT = 100;

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** How a bucket's start reads on the axis: a time of day, or a date for daily buckets. */
function bucketLabel(startSeconds: number, bucketSeconds: number): string {
  const date = new Date(startSeconds * 1000);
  if (bucketSeconds >= 86_400) return `${MONTHS[date.getUTCMonth()]} ${date.getUTCDate()}`;
  return date.toISOString().slice(11, 16);
}

/** The smallest 1, 2 or 5 × 10^n at or above `value` (at least 1), so the axis reads cleanly. */
function niceCeiling(value: number): number {
  if (value <= 1) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}

/** What a bar's third part counts: requests with a key that no longer works, refused 401. */
const REFUSED = "refused (revoked/expired)";

/** Every request of a bucket, whatever became of it: the bar's full height. */
function total(point: UsagePoint): number {
  return point.accepted + point.limited + point.refused;
}

/**
 * Requests over time as stacked bars (admitted, refused with 429, then refused because the
 * key was revoked or had expired), drawn on the server
 * as SVG: no script, no library, nothing to load. The SVG holds only bars and grid lines and
 * stretches to any width; the axis labels are HTML, so they stay legible on a phone. Each
 * bar has a tooltip, and the same numbers are in a table for screen readers.
 */
export function usageChart(series: UsageSeries, caption: string): SafeHtml {
  const { points, bucketSeconds } = series;
  const max = niceCeiling(Math.max(...points.map(total)));
  const width = points.length * SLOT;
  const y = (value: number) => HEIGHT - (value / max) * HEIGHT;
  const unit = bucketSeconds === 60 ? "minute" : bucketSeconds === 3600 ? "hour" : "day";

  const grid = [0, 0.5, 1].map(
    (share) =>
      html`<line class="grid" x1="0" x2="${width}" y1="${y(max * share)}" y2="${y(max * share)}"></line>`,
  );
  const bars = points.map((point, i) => {
    const x = i * SLOT + SLOT * 0.14;
    const acceptedTop = y(point.accepted);
    const limitedTop = y(point.accepted + point.limited);
    const refusedTop = y(total(point));
    const label = `${bucketLabel(point.start, bucketSeconds)} UTC: ${integer(point.accepted)} accepted, ${integer(point.limited)} limited (429), ${integer(point.refused)} ${REFUSED}`;
    return html`<g class="bar" data-start="${point.start}" data-accepted="${point.accepted}" data-limited="${point.limited}" data-refused="${point.refused}"><title>${label}</title>
<rect class="hit" x="${i * SLOT}" y="0" width="${SLOT}" height="${HEIGHT}"></rect>
${point.accepted > 0 && html`<rect class="bar-accepted" x="${x}" y="${acceptedTop}" width="${SLOT * 0.72}" height="${HEIGHT - acceptedTop}"></rect>`}
${point.limited > 0 && html`<rect class="bar-limited" x="${x}" y="${limitedTop}" width="${SLOT * 0.72}" height="${acceptedTop - limitedTop}"></rect>`}
${point.refused > 0 && html`<rect class="bar-refused" x="${x}" y="${refusedTop}" width="${SLOT * 0.72}" height="${limitedTop - refusedTop}"></rect>`}
</g>`;
  });
  const middle = points[Math.floor((points.length - 1) / 2)];
  const first = points[0];
  const last = points.at(-1);
  const busy = points.filter((p) => total(p) > 0);
  const summary = `${integer(series.totals.accepted)} accepted, ${integer(series.totals.limited)} limited (429) and ${integer(series.totals.refused)} ${REFUSED} requests, one bar per ${unit}.`;
  const titleId = `chart-${series.range}-title`;
  const descId = `chart-${series.range}-desc`;

  return html`<figure class="chart" data-chart="usage">
<figcaption>
  <span class="chart-caption">${caption}</span>
  <span class="legend"><span class="legend-item"><span class="swatch swatch-accepted"></span>Accepted <strong data-total="accepted">${integer(series.totals.accepted)}</strong></span>
  <span class="legend-item"><span class="swatch swatch-limited"></span>Limited (429) <strong data-total="limited">${integer(series.totals.limited)}</strong></span>
  <span class="legend-item"><span class="swatch swatch-refused"></span>Refused (revoked/expired) <strong data-total="refused">${integer(series.totals.refused)}</strong></span></span>
</figcaption>
<div class="chart-body">
  <div class="chart-y" aria-hidden="true"><span>${integer(max)}</span><span>${max % 2 === 0 ? integer(max / 2) : ""}</span><span>0</span></div>
  <div class="chart-plot">
    <svg viewBox="0 0 ${width} ${HEIGHT}" preserveAspectRatio="none" role="img" aria-labelledby="${titleId} ${descId}">
    <title id="${titleId}">${caption}</title><desc id="${descId}">${summary}</desc>
    ${grid}${bars}
    </svg>
    ${busy.length === 0 && html`<p class="chart-empty">No requests in this period</p>`}
  </div>
  <span></span>
  <div class="chart-x" aria-hidden="true"><span>${first && bucketLabel(first.start, bucketSeconds)}</span><span>${middle && bucketLabel(middle.start, bucketSeconds)}</span><span>${last && bucketLabel(last.start, bucketSeconds)} UTC</span></div>
</div>
<details class="chart-data">
<summary>Show the numbers</summary>
${
  busy.length === 0
    ? html`<p class="muted">No requests in this period.</p>`
    : html`<table class="table compact"><thead><tr><th scope="col">${unit === "day" ? "Day" : "Time"} (UTC)</th><th scope="col" class="num">Accepted</th><th scope="col" class="num">Limited (429)</th><th scope="col" class="num">Refused (revoked/expired)</th></tr></thead>
<tbody>${busy.map((p) => html`<tr><td>${bucketLabel(p.start, bucketSeconds)}</td><td class="num">${integer(p.accepted)}</td><td class="num">${integer(p.limited)}</td><td class="num">${integer(p.refused)}</td></tr>`)}</tbody></table>`
}
</details>
</figure>`;
}
