/**
 * Where JSON text stops being JSON, found by scanning it: V8's own messages differ between
 * Node versions, name no position for an unexpected token, and quote the text (a body may
 * hold a secret). Run only on a body that failed to parse, to say where and why.
 */
export type JsonFault =
  /** The text ends inside a value: a quote, `]` or `}` missing. */
  | { kind: "end" }
  /** A raw control character (a line break, a tab) inside a string. */
  | { kind: "control"; index: number }
  /** A member's name where something else stands (`{query: 1}`, `{'query': 1}`). */
  | { kind: "name"; index: number }
  /** Any other character JSON does not take where it stands. */
  | { kind: "unexpected"; index: number };

type Expecting = "value" | "first value" | "name" | "first name" | "after value";

const WHITESPACE = new Set([" ", "\t", "\n", "\r"]);
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const LITERALS = ["true", "false", "null"];
const ESCAPED = new Set(['"', "\\", "/", "b", "f", "n", "r", "t"]);
const HEX4 = /[0-9a-fA-F]{4}/y;

/** The first fault of `text` as JSON, or undefined when it is JSON. Iterative: any depth. */
export function firstJsonFault(text: string): JsonFault | undefined {
  const open: ("]" | "}")[] = [];
  let at = text.startsWith("\uFEFF") ? 1 : 0;
  let expecting: Expecting = "value";
  for (;;) {
    while (at < text.length && WHITESPACE.has(text[at] as string)) at++;
    const char = text[at];
    if (char === undefined)
      return expecting === "after value" && open.length === 0 ? undefined : { kind: "end" };
    if (expecting === "after value") {
      const closing = open.at(-1);
      if (closing === undefined) return { kind: "unexpected", index: at };
      if (char === closing) open.pop();
      else if (char === ",") expecting = closing === "}" ? "name" : "value";
      else return { kind: "unexpected", index: at };
      at++;
      continue;
    }
    if (expecting === "name" || expecting === "first name") {
      if (expecting === "first name" && char === "}") {
        open.pop();
        at++;
        expecting = "after value";
        continue;
      }
      // A `}` after a comma is the comma's fault, said as an unexpected `}`.
      if (char !== '"') return { kind: char === "}" ? "unexpected" : "name", index: at };
      const end = stringEnd(text, at);
      if (typeof end !== "number") return end;
      at = end;
      while (at < text.length && WHITESPACE.has(text[at] as string)) at++;
      if (at >= text.length) return { kind: "end" };
      if (text[at] !== ":") return { kind: "unexpected", index: at };
      at++;
      expecting = "value";
      continue;
    }
    if (expecting === "first value" && char === "]") {
      open.pop();
      at++;
      expecting = "after value";
      continue;
    }
    expecting = "after value";
    if (char === "{" || char === "[") {
      open.push(char === "{" ? "}" : "]");
      expecting = char === "{" ? "first name" : "first value";
      at++;
    } else if (char === '"') {
      const end = stringEnd(text, at);
      if (typeof end !== "number") return end;
      at = end;
    } else {
      const end = scalarEnd(text, at);
      if (typeof end !== "number") return end;
      at = end;
    }
  }
}

/** The index after the string opening at `start`, or its fault. */
function stringEnd(text: string, start: number): number | JsonFault {
  for (let at = start + 1; at < text.length; at++) {
    const char = text[at] as string;
    if (char === '"') return at + 1;
    if (char.charCodeAt(0) < 0x20) return { kind: "control", index: at };
    if (char !== "\\") continue;
    at++;
    const escaped = text[at];
    if (escaped === undefined) break;
    if (escaped === "u") {
      HEX4.lastIndex = at + 1;
      if (!HEX4.test(text)) return { kind: "unexpected", index: at };
      at += 4;
    } else if (!ESCAPED.has(escaped)) return { kind: "unexpected", index: at };
  }
  return { kind: "end" };
}

/** The index after the number or literal at `start`, or its fault. */
function scalarEnd(text: string, start: number): number | JsonFault {
  const literal = LITERALS.find((word) => text.startsWith(word, start));
  if (literal) return start + literal.length;
  // `tru` at the very end is a literal cut short.
  const rest = text.slice(start);
  if (LITERALS.some((word) => word.startsWith(rest))) return { kind: "end" };
  NUMBER.lastIndex = start;
  const number = NUMBER.exec(text);
  return number ? start + number[0].length : { kind: "unexpected", index: start };
}

/**
 * Where and why `text`, which `JSON.parse` refused, stops being JSON, in words (a raw line
 * break in a string, which agents building JSON by hand send most); undefined when no fault
 * is found. Only a character that is no part of a word is repeated: the text may hold a
 * secret, which JSON.parse's own messages quote.
 */
export function jsonFaultInWords(text: string): string | undefined {
  const fault = firstJsonFault(text);
  return fault && faultInWords(fault, text);
}

function faultInWords(fault: JsonFault, text: string): string {
  if (fault.kind === "end") return "it ends before the JSON does (a quote, ] or } missing)";
  const before = text.slice(0, fault.index);
  const line = before.split("\n").length;
  const where = `line ${line}, column ${fault.index - before.lastIndexOf("\n")}`;
  if (fault.kind === "control") {
    return `a control character (a line break or tab) at ${where}, inside a string, must be escaped (\\n, \\t)`;
  }
  if (fault.kind === "name") return `a member's name, in double quotes, was expected at ${where}`;
  const char = text[fault.index] ?? "";
  if (/[\p{L}\p{N}_]/u.test(char)) return `unexpected text at ${where}`;
  const trailingComma = "]}".includes(char) && before.trimEnd().endsWith(",");
  const hint = trailingComma
    ? " (after a trailing comma)"
    : char === "'"
      ? " (JSON takes double quotes)"
      : "";
  return `unexpected ${JSON.stringify(char)} at ${where}${hint}`;
}
