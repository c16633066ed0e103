import { maskingWork, type Span, spansPlaced } from "./masked-spans.js";

/** A `%` escape of an ASCII character (`%3D`, `%25`): one that can hide a separator, a name or another escape. */
const ASCII_ESCAPE = /%[0-7][0-9a-f]/i;

/**
 * A text with one layer of percent-encoding decoded, and where each of its characters was
 * written in the text it was decoded from, so that what is found in it can be masked in
 * the text as written, its escapes kept.
 */
interface DecodedLayer {
  text: string;
  /** For each character of `text`, and then for its end, the index in the encoded text it starts at. */
  origins: Int32Array;
}

/** Whether `text` holds an escape that `decodedLayer` would decode. */
function holdsAsciiEscape(text: string): boolean {
  return ASCII_ESCAPE.test(text);
}

/**
 * `text` with its escapes of ASCII characters decoded, once (`%3F` is `?`, `%253F` is
 * `%3F`), in one pass; undefined when it holds none. Only ASCII is decoded: every character
 * that separates or names a credential in a URL is ASCII, and a character decoded from two
 * or more bytes would not keep the one-to-one origins. Other escapes, and a `%` that starts
 * none, are kept as written; `+` is kept too (read as a space only in a name: `decodedName`).
 */
function decodedLayer(text: string): DecodedLayer | undefined {
  if (!holdsAsciiEscape(text)) return undefined;
  const chars: string[] = [];
  const origins: number[] = [];
  for (let index = 0; index < text.length; ) {
    origins.push(index);
    const escaped = text.charAt(index) === "%" ? text.slice(index, index + 3) : "";
    if (escaped.length === 3 && ASCII_ESCAPE.test(escaped)) {
      chars.push(String.fromCharCode(Number.parseInt(escaped.slice(1), 16)));
      index += 3;
    } else {
      chars.push(text.charAt(index));
      index += 1;
    }
  }
  origins.push(text.length);
  return { text: chars.join(""), origins: Int32Array.from(origins) };
}

/**
 * How many layers of percent-encoding masking reads through. A URL in a query value is
 * encoded once (`?next=%2Fcb%3Ftoken%3D…`), a URL in that URL's query twice (a login's
 * `next` to an OAuth authorize URL with its `redirect_uri`), and so on: four layers is
 * deeper than a real URL nests. Each layer read is one more pass over the text, so a
 * hostile one (`%25252525…`, written thousands of layers deep) costs four passes, not one
 * per layer it writes, each decoding it all again (its length squared); what is still
 * escaped past the last is masked (`escapedValueSpans`), since it may hide a credential
 * in any form.
 */
const MAX_LAYERS = 4;

/**
 * What `findIn` finds in `text` decoded once, twice, … up to MAX_LAYERS times, placed where
 * it is written in `text`, so that masking it keeps the escapes around it. Each layer is
 * decoded from the one before; decoding stops when no escape is left, at once for most text.
 */
export function spansUnderEncoding(text: string, findIn: (layer: string) => Span[]): Span[] {
  const spans: Span[] = [];
  let layerText = text;
  // Where each character of the layer (and its end) is written in `text`; undefined: `text` itself.
  let origins: Int32Array | undefined;
  for (let depth = 1; depth <= MAX_LAYERS; depth++) {
    const layer = decodedLayer(layerText);
    if (layer === undefined) return spans;
    maskingWork.decoded += layerText.length;
    const before = origins;
    const inText =
      before === undefined ? layer.origins : layer.origins.map((at) => before[at] ?? text.length);
    spans.push(...spansPlaced(findIn(layer.text), (index) => inText[index] ?? text.length));
    layerText = layer.text;
    origins = inText;
  }
  if (holdsAsciiEscape(layerText)) {
    const inText = origins;
    spans.push(...spansPlaced(escapedValueSpans(layerText), (index) => inText?.[index] ?? index));
  }
  return spans;
}

/**
 * In a text decoded MAX_LAYERS times, the values that still hold an escape: each run
 * between `&`, `;`, `#` and spaces that holds one, from after its first `=` when a name
 * comes before the first `%` (`?next=[redacted]`), else whole.
 */
function escapedValueSpans(text: string): Span[] {
  const spans: Span[] = [];
  let runStart = 0;
  for (const run of text.split(/[&;#\s]/)) {
    if (holdsAsciiEscape(run)) {
      const equals = run.indexOf("=");
      const firstPercent = run.indexOf("%");
      const from = equals !== -1 && equals < firstPercent ? equals + 1 : 0;
      spans.push({ from: runStart + from, to: runStart + run.length });
    }
    runStart += run.length + 1;
  }
  return spans;
}
