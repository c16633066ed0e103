import type { z } from "zod";
import { type ErrorCode, type ErrorDetail, ServiceError } from "./errors.js";
import { issueInWords, NOT_ALLOWED_HERE } from "./issue-words.js";
import { mayMean, meantNames } from "./member-names.js";
import { innermost, isPlainRecord } from "./schema-layers.js";

/**
 * `schema.safeParse(input)`, its issues worded for the people and agents who sent the input
 * (`issueInWords`): every parse whose refusal someone reads goes through here.
 */
export function safeParseInWords<S extends z.ZodType>(
  schema: S,
  input: unknown,
): z.ZodSafeParseResult<z.output<S>> {
  return schema.safeParse(input, IN_WORDS);
}

/**
 * The context of every worded parse, made once. zod copies it with `async: false` added
 * (`{ ...ctx, async: false }`); V8 copies an object already holding that member on its fast
 * path, and one without it on a slow one whose copy then slows the whole parse: 1.6 µs
 * against 0.4 µs for an execute request's body (Node 20), paid by every request twice.
 */
const IN_WORDS: z.core.ParseContextInternal<z.core.$ZodIssue> = { error: issueInWords, async: false };

/**
 * zod issues, from parsing `input` with `schema`, as the contract's `details`:
 * `{path, message}` with a dotted path. Members an object does not take are one detail
 * each, at the member's own path (zod puts them all at the object's), so that the caller
 * sees which name was wrong where it sent it, and the name it meant when one is close.
 */
export function toErrorDetails(error: z.ZodError, schema: z.ZodType, input: unknown): ErrorDetail[] {
  return error.issues.flatMap((issue) =>
    issue.code === "unrecognized_keys"
      ? issue.keys.map((key) =>
          detail([...issue.path, key], unknownMemberMessage(key, membersAt(schema, issue.path))),
        )
      : [detail(issue.path, messageOf(issue, schema, input))],
  );
}

const OMIT_FOR_DEFAULT = "omit it to use the default";

/**
 * The issue's words (`issueInWords`), told more where the schema and the input say more:
 * a null for an optional member stays refused (it is no value the schema takes) but is
 * told that leaving the member out gives the default, whatever the member's type; a
 * required member missing because it was sent under a close name is told that name.
 */
function messageOf(issue: z.core.$ZodIssue, schema: z.ZodType, input: unknown): string {
  const value = valueAt(input, issue.path);
  if (value === null && memberAt(schema, issue.path)?._zod.optin !== undefined) {
    return `${issue.message}; ${OMIT_FOR_DEFAULT}`;
  }
  // Whatever zod calls the issue (a union's is "invalid_union"): a member is missing.
  const sentAs = value === undefined ? sentUnderAnotherName(schema, input, issue.path) : undefined;
  return sentAs ? `${issue.message}; ${sentAs}` : issue.message;
}

/** Listing more members than this buries the one meant; the schema lists them all. */
const MAX_MEMBERS_LISTED = 8;

/**
 * Why `name` was refused: the member it misspells when one is close (`expresion`), else the
 * members the object takes while they are few, else where they are listed.
 */
function unknownMemberMessage(name: string, members: readonly string[] | undefined): string {
  const meant = meantNames(name, members ?? []);
  if (meant.length > 0) return `${NOT_ALLOWED_HERE}; did you mean ${quotedList(meant)}?`;
  if (members && members.length > 0 && members.length <= MAX_MEMBERS_LISTED) {
    return `${NOT_ALLOWED_HERE}; this object takes ${members.map((member) => JSON.stringify(member)).join(", ")}`;
  }
  return `${NOT_ALLOWED_HERE} (the schema lists the members this object takes)`;
}

/**
 * For a member missing at `path` that the caller sent under a close name (`execution_id` for
 * `id`, which an object that drops unknown members never mentions), the name it meant.
 */
function sentUnderAnotherName(
  schema: z.ZodType,
  input: unknown,
  path: readonly PropertyKey[],
): string | undefined {
  const name = path.at(-1);
  const parent = valueAt(input, path.slice(0, -1));
  const members = membersAt(schema, path.slice(0, -1));
  if (typeof name !== "string" || !isPlainRecord(parent) || !members || Object.hasOwn(parent, name)) {
    return undefined;
  }
  const sent = Object.keys(parent).filter((key) => !members.includes(key) && mayMean(key, name));
  return sent.length > 0
    ? `${quotedList(sent)} is not a member: did you mean ${JSON.stringify(name)}?`
    : undefined;
}

function quotedList(names: readonly string[]): string {
  return names.map((name) => JSON.stringify(name)).join(" or ");
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (!(Array.isArray(value) || isPlainRecord(value)) || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** The schema of the member at `path` as its parent declares it (wrappers kept), if it can be told. */
function memberAt(schema: z.ZodType, path: readonly PropertyKey[]): z.ZodType | undefined {
  let member: z.ZodType | undefined = schema;
  for (const key of path) {
    const def = innermost(member)._zod.def as {
      type: string;
      shape?: Record<string, z.ZodType>;
      element?: z.ZodType;
      valueType?: z.ZodType;
    };
    if (def.type === "object" && typeof key === "string") member = def.shape?.[key];
    else if (def.type === "array") member = def.element;
    else if (def.type === "record") member = def.valueType;
    else return undefined;
    if (!member) return undefined;
  }
  return member;
}

/** The members the object at `path` declares, when the schema there is an object. */
function membersAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] | undefined {
  const member = memberAt(schema, path);
  if (!member) return undefined;
  const def = innermost(member)._zod.def as { type: string; shape?: Record<string, z.ZodType> };
  return def.type === "object" && def.shape ? Object.keys(def.shape) : undefined;
}

function detail(path: readonly PropertyKey[], message: string): ErrorDetail {
  return { path: path.map(String).join(".") || "(root)", message };
}

/**
 * Parses `input` with `schema` or throws a `ServiceError` (`invalid_request` unless told
 * otherwise) whose details say where and what. The one place input becomes typed.
 */
export function parseOrThrow<S extends z.ZodType>(
  schema: S,
  input: unknown,
  code: ErrorCode = "invalid_request",
  message?: string,
): z.output<S> {
  const parsed = safeParseInWords(schema, input);
  if (parsed.success) return parsed.data;
  const details = toErrorDetails(parsed.error, schema, input);
  const first = details[0];
  return throwError(code, message ?? (first ? `${first.path}: ${first.message}` : undefined), details);
}

/** A member a request does not take, as its caller sent it: in a JSON object, or in a URL's query. */
const NOT_TAKEN = {
  object: NOT_ALLOWED_HERE,
  query: "not a query parameter this path takes",
} as const;

/**
 * What a request carries outside its members, by the member name a caller may put it under
 * instead, compacted (`compactName`): where it goes, as the refusal says it (`send it in the
 * Idempotency-Key header`). Each surface says its own place.
 */
export type SentElsewhere = Readonly<Record<string, string>>;

/** A member's name without case or separators: `idempotency_key`, `IdempotencyKey` and `idempotency-key` alike. */
export function compactName(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, "");
}

/**
 * Parses a request (a REST body or query, an MCP tool's arguments) as `parseOrThrow` does,
 * and refuses a member the schema does not declare whose name is close to one it does
 * (`timeout` for `timeout_ms`, `Limit`, `tag`), or one named as what the request carries
 * elsewhere (`sentElsewhere`: an idempotency key): zod drops it, and the request would run
 * with the default in its place (synchronously, for 30 s; or twice, when retried) without a
 * word. A member close to none stays ignored, as a member a later version takes would be.
 */
export function parseRequest<S extends z.ZodObject>(
  schema: S,
  input: unknown,
  sentIn: keyof typeof NOT_TAKEN = "object",
  sentElsewhere: SentElsewhere = {},
): z.output<S> {
  const parsed = parseOrThrow(schema, input);
  const members = Object.keys(schema.shape);
  const misnamed = isPlainRecord(input) ? Object.keys(input).filter((name) => !members.includes(name)) : [];
  const details = misnamed.flatMap((name) => {
    const elsewhere = sentElsewhere[compactName(name)];
    if (elsewhere) return [detail([name], `${NOT_TAKEN[sentIn]}; ${elsewhere}`)];
    const meant = meantNames(name, members);
    return meant.length > 0
      ? [detail([name], `${NOT_TAKEN[sentIn]}; did you mean ${quotedList(meant)}?`)]
      : [];
  });
  const [first] = details;
  if (first) throwError("invalid_request", `${first.path}: ${first.message}`, details);
  return parsed;
}

function throwError(code: ErrorCode, message: string | undefined, details: ErrorDetail[]): never {
  throw new ServiceError(code, { message, details });
}

/** Deeper JSON than this is no realistic input, and recursive code (hashing, cloning) may overflow on it. */
const MAX_JSON_DEPTH = 100;

/**
 * Throws `invalid_request` when `value` nests arrays and objects deeper than `maxDepth`.
 * Walks with an explicit stack, so the check itself cannot overflow.
 */
export function assertJsonDepth(value: unknown, path: string, maxDepth = MAX_JSON_DEPTH): void {
  const pending: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
    if (item.value === null || typeof item.value !== "object") continue;
    if (item.depth >= maxDepth) {
      const message = `nested deeper than ${maxDepth} levels`;
      throw new ServiceError("invalid_request", {
        message: `${path}: ${message}`,
        details: [{ path, message }],
      });
    }
    for (const child of Object.values(item.value)) pending.push({ value: child, depth: item.depth + 1 });
  }
}
