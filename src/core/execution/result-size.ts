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
 * with `JSON.stringify`, which throws on a bigint (an HTTP 500 and a record left
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
 *
 * It runs on every execution (twice: before and after the result schema), so it allocates
 * nothing for a value without a fault: the path to a fault is built on the way back out of
 * the walk, and the ancestors (for cycles) are a stack read through while short.
 */
export function resultFault(value: unknown, maxBytes: number): ResultFault | undefined {
  const walk: Walk = { budget: maxBytes, ancestors: [], deepAncestors: undefined };
  const found = visit(walk, value, false);
  if (found === undefined) return walk.budget < 0 ? TOO_LARGE : undefined;
  return found.kind === "too_large"
    ? TOO_LARGE
    : { kind: "not_json", path: pathText(found.steps), found: found.found };
}

/** A walk's state: the bytes left, and the objects on the path to the node being walked. */
interface Walk {
  budget: number;
  ancestors: object[];
  /** The ancestors as a set, once the path is deep enough that reading the stack would cost. */
  deepAncestors: Set<object> | undefined;
}

/** A fault found below a node: what, and the steps from that node down to it, deepest first. */
type Found = { kind: "too_large" } | { kind: "not_json"; steps: (string | number)[]; found: string };

/** Ancestors read one by one up to this depth; a set beyond it, so a deep value costs linear time. */
const SHALLOW = 32;

function visit(walk: Walk, node: unknown, inArray: boolean): Found | undefined {
  if (typeof node === "string") walk.budget -= jsonStringBytes(node, walk.budget);
  else if (typeof node === "number") {
    if (!Number.isFinite(node)) return notJson(`${node}, which JSON writes as null`);
    walk.budget -= String(node).length;
  } else if (typeof node === "bigint") return notJson("a bigint; return it as a number or a string");
  else if (typeof node === "function") return notJson("a function");
  else if (typeof node === "symbol") return notJson("a symbol");
  else if (node === undefined) {
    if (inArray) return notJson("undefined in an array, which JSON writes as null");
  } else if (node === null || typeof node === "boolean") walk.budget -= 5;
  else if (node instanceof Date)
    walk.budget -= 26; // JSON writes its toISOString()
  else return visitObject(walk, node);
  return walk.budget < 0 ? TOO_LARGE : undefined;
}

function visitObject(walk: Walk, node: object): Found | undefined {
  const kind = nonPlainKind(node);
  if (kind !== undefined) return notJson(kind);
  if (isAncestor(walk, node)) return notJson("a cycle: the value contains itself");
  walk.ancestors.push(node);
  walk.deepAncestors?.add(node);
  walk.budget -= 2;
  let found: Found | undefined;
  if (Array.isArray(node)) {
    for (let index = 0; index < node.length && found === undefined; index++) {
      walk.budget -= 1; // the comma
      found = walk.budget < 0 ? TOO_LARGE : below(visit(walk, node[index], true), index);
    }
  } else {
    for (const key in node) {
      if (!Object.hasOwn(node, key)) continue;
      walk.budget -= jsonStringBytes(key, walk.budget) + 2; // colon and comma
      found =
        walk.budget < 0 ? TOO_LARGE : below(visit(walk, (node as Record<string, unknown>)[key], false), key);
      if (found !== undefined) break;
    }
  }
  walk.ancestors.pop();
  walk.deepAncestors?.delete(node);
  return found ?? (walk.budget < 0 ? TOO_LARGE : undefined);
}

function isAncestor(walk: Walk, node: object): boolean {
  if (walk.deepAncestors) return walk.deepAncestors.has(node);
  if (walk.ancestors.length < SHALLOW) return walk.ancestors.includes(node);
  walk.deepAncestors = new Set(walk.ancestors);
  return walk.deepAncestors.has(node);
}

function notJson(found: string): Found {
  return { kind: "not_json", steps: [], found };
}

/** `found` seen from one step up: `step` joins its path. */
function below(found: Found | undefined, step: string | number): Found | undefined {
  if (found?.kind === "not_json") found.steps.push(step);
  return found;
}

const TOO_LARGE = { kind: "too_large" } as const;

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

/** `result.rows[2].name`, or `result["a b"]` for a key that is not an identifier, from the steps deepest first. */
function pathText(reversed: (string | number)[]): string {
  return reversed.reduceRight<string>((text, step) => {
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
