/**
 * The largest result a record keeps, in bytes of UTF-8 JSON. A skill's output can be far
 * larger than its input (a JMESPath expression of 150 bytes can select 2^28 copies of its
 * document; a control character is one byte of input and six of JSON, `\u0001`), and a
 * record that big cannot be stored or sent: it fails instead, with a message saying to
 * ask for less.
 */
export const MAX_RESULT_BYTES = 8 * 1024 * 1024;

/**
 * What is wrong with a skill's output as a record's result, if anything: too large, or a
 * value JSON does not carry faithfully. The store and every answer serialize the result
 * with `JSON.stringify`, which throws on a bigint (audit 26 F1: HTTP 500 and a record left
 * `running`), overflows on a cycle, and silently drops or changes the rest (a function, a
 * Map, `undefined` in an array, NaN): each is a slip of the skill's author, told to them.
 */
export type ResultFault =
  | { kind: "too_large" }
  /** `path` is where, from `result`; `found` says what, in words. */
  | { kind: "not_json"; path: string; found: string };

/**
 * Walks `value` once and gives its first fault. Stops as soon as the JSON byte count passes
 * `maxBytes`, so it costs at most that much work whatever the value's real size: a result
 * whose parts are shared (a structured clone keeps sharing) is never expanded in full, as
 * `JSON.stringify` would do. Only own enumerable string keys count, as in JSON.
 */
export function resultFault(value: unknown, maxBytes: number): ResultFault | undefined {
  let budget = maxBytes;
  /** The objects on the path to the node being walked: one met again is a cycle. */
  const ancestors = new Set<object>();
  const path: (string | number)[] = [];
  const notJson = (found: string): ResultFault => ({ kind: "not_json", path: pathText(path), found });
  const visit = (node: unknown, inArray: boolean): ResultFault | undefined => {
    if (typeof node === "string") budget -= jsonStringBytes(node, budget);
    else if (typeof node === "number") {
      if (!Number.isFinite(node)) return notJson(`${node}, which JSON writes as null`);
      budget -= String(node).length;
    } else if (typeof node === "bigint") return notJson("a bigint; return it as a number or a string");
    else if (typeof node === "function") return notJson("a function");
    else if (typeof node === "symbol") return notJson("a symbol");
    else if (node === undefined) {
      if (inArray) return notJson("undefined in an array, which JSON writes as null");
    } else if (node === null || typeof node === "boolean") budget -= 5;
    else if (node instanceof Date)
      budget -= 26; // JSON writes its toISOString()
    else {
      const kind = nonPlainKind(node);
      if (kind !== undefined) return notJson(kind);
      if (ancestors.has(node)) return notJson("a cycle: the value contains itself");
      ancestors.add(node);
      budget -= 2;
      if (Array.isArray(node)) {
        for (let index = 0; index < node.length; index++) {
          budget -= 1; // the comma
          path.push(index);
          const fault = budget < 0 ? TOO_LARGE : visit(node[index], true);
          path.pop();
          if (fault) return fault;
        }
      } else {
        for (const key in node) {
          if (!Object.hasOwn(node, key)) continue;
          budget -= jsonStringBytes(key, budget) + 2; // colon and comma
          path.push(key);
          const fault = budget < 0 ? TOO_LARGE : visit((node as Record<string, unknown>)[key], false);
          path.pop();
          if (fault) return fault;
        }
      }
      ancestors.delete(node);
    }
    return budget < 0 ? TOO_LARGE : undefined;
  };
  return visit(value, false);
}

const TOO_LARGE: ResultFault = { kind: "too_large" };

/**
 * What a non-plain object is ("a Map", "an instance of Pool"), or undefined for an array or
 * a plain object. JSON writes a Map, a Set or a typed array as `{}` and a class instance
 * without its prototype's getters: data lost without a word.
 */
function nonPlainKind(node: object): string | undefined {
  if (Array.isArray(node)) return undefined;
  const prototype = Object.getPrototypeOf(node) as object | null;
  if (prototype === null || prototype === Object.prototype) return undefined;
  const name = (node as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === "string" && name !== "" ? `an instance of ${name}` : "an object that is not plain";
}

/** `result.rows[2].name`, or `result["a b"]` for a key that is not an identifier. */
function pathText(path: (string | number)[]): string {
  return path.reduce<string>((text, step) => {
    if (typeof step === "number") return `${text}[${step}]`;
    return /^[A-Za-z_$][\w$]*$/.test(step) ? `${text}.${step}` : `${text}[${JSON.stringify(step)}]`;
  }, "result");
}

/** The failure message for a result JSON cannot carry: for the caller, and the author. */
export function notJsonMessage(skillId: string, fault: { path: string; found: string }): string {
  return (
    `The skill ${skillId} returned a value JSON cannot carry at ${fault.path} (${fault.found}); ` +
    "a skill's result must be plain JSON data."
  );
}

/**
 * Bytes of `text` as a JSON string in UTF-8: its quotes, escapes (`\"`, `\\`, `\n`,
 * `\u0001`, a lone surrogate's `\ud800`) and multi-byte characters. Stops counting once
 * past `budget`: the caller only needs to know that it is over.
 */
function jsonStringBytes(text: string, budget: number): number {
  let bytes = 2;
  for (let i = 0; i < text.length && bytes <= budget; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20) bytes += SHORT_ESCAPES.has(code) ? 2 : 6;
    else if (code === 0x22 || code === 0x5c) bytes += 2;
    else if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && isLowSurrogate(text.charCodeAt(i + 1))) {
      bytes += 4; // a pair: one character of four bytes
      i++;
    } else if (code >= 0xd800 && code <= 0xdfff) bytes += 6;
    else bytes += 3;
  }
  return bytes;
}

/** \b \t \n \f \r: the control characters JSON writes in two bytes. */
const SHORT_ESCAPES = new Set([0x08, 0x09, 0x0a, 0x0c, 0x0d]);

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
