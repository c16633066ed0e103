/** One media range of an `Accept` header: `type/subtype` (either may be `*`) and its weight. */
interface MediaRange {
  type: string;
  subtype: string;
  q: number;
}

/** Whether a header can name `text/event-stream` at all (media types are case-insensitive). */
const EVENT_STREAM = /event-stream/i;

/** A weight as RFC 9110 §12.4.2 writes it: 0 to 1, at most three decimals. */
const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/**
 * Whether an `Accept` header asks for `text/event-stream` rather than JSON: it names
 * `text/event-stream` with a weight above 0, and above that of the most specific range
 * that matches `application/json` (itself, `application/*` or the range of every type), when
 * one is listed. A client that prefers JSON, or likes both equally (an MCP-style client
 * sends `application/json, text/event-stream` on every request), gets JSON: RFC 9110
 * §12.5.1 has the server honour the client's preference, and JSON is this API's answer.
 * Without the header, or with one naming neither, the answer is JSON too.
 */
export function prefersEventStream(accept: string | undefined): boolean {
  // Most requests carry no Accept, or one that cannot name the stream: no parse for them.
  if (accept === undefined || !EVENT_STREAM.test(accept)) return false;
  const ranges = mediaRanges(accept);
  const stream = weightOf(ranges, "text", "event-stream", { exactOnly: true });
  if (stream === undefined || stream === 0) return false;
  const json = weightOf(ranges, "application", "json", { exactOnly: false });
  return json === undefined || stream > json;
}

/** The ranges of an `Accept` header, ignoring any that is malformed (no `/`, a bad weight). */
function mediaRanges(accept: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const part of accept.split(",")) {
    const [mediaType = "", ...parameters] = part.split(";");
    const [type, subtype, ...extra] = mediaType.trim().toLowerCase().split("/");
    if (!type || !subtype || extra.length > 0) continue;
    let q = 1;
    let valid = true;
    for (const parameter of parameters) {
      const [name = "", value = ""] = parameter.split("=");
      if (name.trim().toLowerCase() !== "q") continue;
      valid = QVALUE.test(value.trim());
      q = Number(value.trim());
    }
    if (valid) ranges.push({ type, subtype, q });
  }
  return ranges;
}

/**
 * The weight the client gives `type/subtype`: that of the most specific range matching
 * it (the highest among equally specific ones), or undefined when none does. With
 * `exactOnly`, only a range naming the type itself counts.
 */
function weightOf(
  ranges: MediaRange[],
  type: string,
  subtype: string,
  { exactOnly }: { exactOnly: boolean },
): number | undefined {
  let best: { specificity: number; q: number } | undefined;
  for (const range of ranges) {
    const specificity =
      range.type === type && range.subtype === subtype
        ? 2
        : range.type === type && range.subtype === "*"
          ? 1
          : range.type === "*" && range.subtype === "*"
            ? 0
            : -1;
    if (specificity < 0 || (exactOnly && specificity < 2)) continue;
    if (!best || specificity > best.specificity || (specificity === best.specificity && range.q > best.q)) {
      best = { specificity, q: range.q };
    }
  }
  return best?.q;
}
