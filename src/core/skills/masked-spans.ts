import { REDACTED } from "./credential-names.js";

/**
 * A part of a text that masking replaces with REDACTED, from `from` up to `to`; an empty
 * one inserts it (`user:@` becomes `user:[redacted]@`). The rules of masking each find
 * spans in the same text, so one rule's finding never hides another's from it.
 */
export interface Span {
  from: number;
  to: number;
}

/**
 * The work masking has done, summed over every value (`parsed`: the characters the
 * authority parses read; `scanned`: those read for a credential member's value;
 * `decoded`: those read to decode a layer of percent-encoding). Only tests read it, to
 * hold masking linear in a value's length without timing it.
 */
export const maskingWork = { parsed: 0, scanned: 0, decoded: 0 };

/** `spans` placed by `origins`: a part of a text's spans in the whole, a decoded text's in the text it was decoded from. */
export function spansPlaced(spans: readonly Span[], origins: (index: number) => number): Span[] {
  return spans.map(({ from, to }) => ({ from: origins(from), to: origins(to) }));
}

/**
 * `text` with each of `spans` replaced by REDACTED, the spans that overlap or touch as
 * one (a member's value that holds a URL's password is masked once), the rest as written.
 */
export function withSpansMasked(text: string, spans: readonly Span[]): string {
  if (spans.length === 0) return text;
  const sorted = [...spans].sort((a, b) => a.from - b.from || a.to - b.to);
  let masked = "";
  let kept = 0;
  let open: Span | undefined;
  for (const span of sorted) {
    if (open !== undefined && span.from <= open.to) {
      open.to = Math.max(open.to, span.to);
      continue;
    }
    if (open !== undefined) {
      masked += text.slice(kept, open.from) + REDACTED;
      kept = open.to;
    }
    open = { ...span };
  }
  if (open !== undefined) {
    masked += text.slice(kept, open.from) + REDACTED;
    kept = open.to;
  }
  return masked + text.slice(kept);
}
