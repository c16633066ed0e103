import escapeHtml from "escape-html";

/** Markup that is already safe: made by `html`, never from text a person typed. */
export class SafeHtml {
  constructor(readonly markup: string) {}
  toString(): string {
    return this.markup;
  }
}

/** What a template can hold: text (escaped), markup (kept), numbers, lists, or nothing. */
export type HtmlValue = SafeHtml | string | number | boolean | null | undefined | readonly HtmlValue[];

/**
 * A tagged template for pages: every interpolated value is escaped by `escape-html` unless
 * it is `SafeHtml`, so text from keys, skills or records can never become markup. Values
 * go into element content or double-quoted attributes only (escape-html covers both).
 * `false`, `null` and `undefined` render nothing, so `${cond && html`…`}` works.
 */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0] ?? "";
  for (let i = 0; i < values.length; i++) out += render(values[i]) + (strings[i + 1] ?? "");
  return new SafeHtml(out);
}

function render(value: HtmlValue): string {
  if (value instanceof SafeHtml) return value.markup;
  if (Array.isArray(value)) return value.map(render).join("");
  if (value === null || value === undefined || value === false || value === true) return "";
  return escapeHtml(String(value));
}
