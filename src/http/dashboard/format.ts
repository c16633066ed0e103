import type { KeyStatus } from "../../core/keys/api-key.js";
import { html, type SafeHtml } from "./html.js";

/** `2026-11-22 09:12 UTC` inside a `<time>` the script shows in the reader's own time zone. */
export function time(iso: string | null, empty = "—"): SafeHtml {
  if (!iso) return html`<span class="muted">${empty}</span>`;
  const text = `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
  return html`<time datetime="${iso}" title="${iso}">${text}</time>`;
}

export function integer(value: number): string {
  return value.toLocaleString("en-US");
}

/** A duration in ms, rounded the way a person reads it. */
export function milliseconds(value: number | null): string {
  if (value === null) return "—";
  if (value < 1) return `${value.toFixed(2)} ms`;
  if (value < 1000) return `${Math.round(value)} ms`;
  return `${Number((value / 1000).toFixed(value < 10_000 ? 2 : 1))} s`;
}

/** A wait in whole seconds as a person says it: "42 s", "14 min", "12 h 26 min". */
export function duration(totalSeconds: number): string {
  if (totalSeconds < 60) return `${totalSeconds} s`;
  const minutes = Math.floor(totalSeconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`;
}

export function seconds(value: number): string {
  if (value % 86_400 === 0) return `${value / 86_400} ${value === 86_400 ? "day" : "days"}`;
  if (value % 3600 === 0) return `${value / 3600} ${value === 3600 ? "hour" : "hours"}`;
  if (value % 60 === 0) return `${value / 60} ${value === 60 ? "minute" : "minutes"}`;
  return `${value} s`;
}

const BADGE_TONES: Record<string, string> = {
  active: "ok",
  completed: "ok",
  revoked: "bad",
  failed: "bad",
  timed_out: "bad",
  expired: "warn",
  cancelled: "warn",
  queued: "info",
  running: "info",
};

/** A status as a coloured pill; the word itself carries the meaning, not the colour. */
export function badge(status: KeyStatus | string): SafeHtml {
  return html`<span class="badge badge-${BADGE_TONES[status] ?? "info"}">${status.replace("_", " ")}</span>`;
}

/** Pretty-printed JSON in a scrollable block. */
export function jsonBlock(value: unknown, label: string): SafeHtml {
  return html`<pre class="code" tabindex="0" aria-label="${label}"><code>${JSON.stringify(value, null, 2)}</code></pre>`;
}
