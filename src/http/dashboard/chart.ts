import type { UsageSeries } from "../../core/usage/usage-service.js";
import { integer } from "./format.js";
import { html, type SafeHtml } from "./html.js";

const WIDTH = 720;
const HEIGHT = 220;
const LEFT = 44;
const RIGHT = 8;
const TOP = 12;
const BOTTOM = 26;

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

/**
 * Requests over time as stacked bars (admitted, then refused with 429), drawn on the server
 * as SVG: no script, no library, nothing to load. Each bar has a tooltip, and the same
 * numbers are in a table for screen readers and for anyone who wants them exactly.
 */
export function usageChart(series: UsageSeries, caption: string): SafeHtml {
  const { points, bucketSeconds } = series;
  const max = niceCeiling(Math.max(...points.map((p) => p.accepted + p.limited)));
  const plotWidth = WIDTH - LEFT - RIGHT;
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const slot = plotWidth / points.length;
  const barWidth = Math.max(1, slot * 0.72);
  const y = (value: number) => TOP + plotHeight - (value / max) * plotHeight;
  const unit = bucketSeconds === 60 ? "minute" : bucketSeconds === 3600 ? "hour" : "day";

  const grid = [0, max / 2, max].map(
    (
      value,
    ) => html`<line class="grid" x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${y(value)}" y2="${y(value)}"></line>
<text class="axis" x="${LEFT - 8}" y="${y(value) + 4}" text-anchor="end">${integer(value)}</text>`,
  );
  const bars = points.map((point, i) => {
    const x = LEFT + i * slot + (slot - barWidth) / 2;
    const acceptedTop = y(point.accepted);
    const limitedTop = y(point.accepted + point.limited);
    const label = `${bucketLabel(point.start, bucketSeconds)} UTC: ${integer(point.accepted)} accepted, ${integer(point.limited)} limited (429)`;
    return html`<g class="bar" data-start="${point.start}" data-accepted="${point.accepted}" data-limited="${point.limited}"><title>${label}</title>
<rect class="hit" x="${LEFT + i * slot}" y="${TOP}" width="${slot}" height="${plotHeight}"></rect>
${point.accepted > 0 && html`<rect class="bar-accepted" x="${x}" y="${acceptedTop}" width="${barWidth}" height="${TOP + plotHeight - acceptedTop}" rx="1.5"></rect>`}
${point.limited > 0 && html`<rect class="bar-limited" x="${x}" y="${limitedTop}" width="${barWidth}" height="${acceptedTop - limitedTop}" rx="1.5"></rect>`}
</g>`;
  });
  const ticks = [0, Math.floor((points.length - 1) / 2), points.length - 1].map((i) => {
    const point = points[i];
    if (!point) return "";
    const anchor = i === 0 ? "start" : i === points.length - 1 ? "end" : "middle";
    const x = i === 0 ? LEFT : i === points.length - 1 ? WIDTH - RIGHT : LEFT + (i + 0.5) * slot;
    return html`<text class="axis" x="${x}" y="${HEIGHT - 6}" text-anchor="${anchor}">${bucketLabel(point.start, bucketSeconds)}</text>`;
  });
  const busy = points.filter((p) => p.accepted + p.limited > 0);
  const summary = `${integer(series.totals.accepted)} accepted and ${integer(series.totals.limited)} limited (429) requests, one bar per ${unit}.`;
  const titleId = `chart-${series.range}-title`;
  const descId = `chart-${series.range}-desc`;

  return html`<figure class="chart" data-chart="usage">
<figcaption>
  <span class="chart-caption">${caption}</span>
  <span class="legend"><span class="swatch swatch-accepted"></span>Accepted <strong data-total="accepted">${integer(series.totals.accepted)}</strong>
  <span class="swatch swatch-limited"></span>Limited (429) <strong data-total="limited">${integer(series.totals.limited)}</strong></span>
</figcaption>
<svg viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="${titleId} ${descId}" preserveAspectRatio="xMidYMid meet">
<title id="${titleId}">${caption}</title><desc id="${descId}">${summary}</desc>
${grid}${bars}${ticks}
</svg>
<details class="chart-data">
<summary>Show the numbers</summary>
${
  busy.length === 0
    ? html`<p class="muted">No requests in this period.</p>`
    : html`<table class="table compact"><thead><tr><th scope="col">${unit === "day" ? "Day" : "Time"} (UTC)</th><th scope="col" class="num">Accepted</th><th scope="col" class="num">Limited (429)</th></tr></thead>
<tbody>${busy.map((p) => html`<tr><td>${bucketLabel(p.start, bucketSeconds)}</td><td class="num">${integer(p.accepted)}</td><td class="num">${integer(p.limited)}</td></tr>`)}</tbody></table>`
}
</details>
</figure>`;
}
