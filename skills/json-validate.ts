import { createRequire } from "node:module";
import type { ErrorObject } from "ajv";
import { z } from "zod";
import { meantNames } from "../src/core/member-names.js";
import { defineSkill, SkillError } from "../src/core/skills/skill.js";
import { errorMessage } from "./lib/errors.js";
import { anyJson, parseJsonText } from "./lib/json-input.js";
import { lazy } from "./lib/lazy.js";

/** Enough to act on; a schema that fails in thousands of places says so in error_count. */
const MAX_ERRORS = 100;

/** The `$schema` values that select a draft, as Ajv's meta-schemas name them ("#" optional). */
const SUPPORTED_SCHEMAS =
  "https://json-schema.org/draft/2020-12/schema (the default), https://json-schema.org/draft/2019-09/schema, " +
  "http://json-schema.org/draft-07/schema# or http://json-schema.org/draft-06/schema#";

/**
 * A schema without "$schema" is read as 2020-12, the draft OpenAPI 3.1 and MCP's tool schemas
 * use and LLMs write today. Read as draft-07 (Ajv's default), its prefixItems,
 * dependentRequired and unevaluatedProperties validated nothing and invalid data passed.
 */
const DEFAULT_DRAFT = "2020-12";

/**
 * Keywords no draft defines that people write as annotations: OpenAPI's `example` and the
 * `x-` extensions. Any other unknown keyword is refused, since it validates nothing: a typo
 * (`typ`) or a keyword of another draft answered `valid: true` for invalid data.
 */
const isAnnotation = (keyword: string) => keyword === "example" || keyword.startsWith("x-");

/** Keywords Ajv reads while resolving references rather than as rules, which strict mode calls unknown. */
const RESOLVER_KEYWORDS = new Set(["$anchor"]);

/**
 * The version-less "latest" meta-schema URI. It names no draft: it meant whichever was the
 * latest when the schema was written, any of them, and JSON Schema deprecated it after
 * draft-04. Ajv reads it as the default draft of the class at hand (draft-07 here), so a
 * schema written for 2020-12 ran with prefixItems and unevaluatedProperties ignored and its
 * data passed; read as 2020-12, a draft-04 schema's `items` array and boolean
 * exclusiveMaximum would be refused or mean something else. Either guess answers wrongly for
 * some schema, so the caller is asked to name the draft.
 */
const VERSIONLESS_SCHEMA = /^https?:\/\/json-schema\.org\/schema#?$/;

/** Ajv's strict-mode words for a keyword it does not know, and for a format it does not know. */
const UNKNOWN_KEYWORD = /^strict mode: unknown keyword: "(.*)"$/s;
const UNKNOWN_FORMAT = /^unknown format "(.*)" ignored in schema at path "/s;

/** Ajv's meta-schema, refusal and compile rounds stop after this many unknown formats. */
const MAX_UNKNOWN_FORMATS = 100;

const loadAjv = lazy(async () => {
  const [{ Ajv }, { Ajv2019 }, { Ajv2020 }, formats] = await Promise.all([
    import("ajv"),
    import("ajv/dist/2019.js"),
    import("ajv/dist/2020.js"),
    import("ajv-formats"),
  ]);
  // Ajv validates draft-06 schemas with its draft-07 rules once it knows the draft-06
  // meta-schema (Ajv's documented way; 07 only added keywords).
  const draft06MetaSchema = createRequire(import.meta.url)(
    "ajv/dist/refs/json-schema-draft-06.json",
  ) as object;
  return {
    Ajv,
    Ajv2019,
    Ajv2020,
    draft06MetaSchema,
    addFormats: formats.default.default ?? formats.default,
  };
});

export const jsonValidate = defineSkill({
  id: "json.validate",
  title: "Validate JSON against a JSON Schema",
  description:
    'Checks JSON data against a JSON Schema (2020-12 unless its "$schema" names 2019-09, draft-07 or draft-06; ' +
    "formats such as email, date-time, uri) and returns `valid` plus every error as {path, message}. A keyword the " +
    'draft does not define (a typo such as "typ", or OpenAPI 3.0\'s "nullable") is refused, not ignored. Use it to verify an API payload, config ' +
    "or generated output before using it.",
  tags: ["json", "schema", "validate", "jsonschema", "check", "ajv"],
  params: z.object({
    schema: z
      .record(z.string(), z.unknown())
      .describe(
        'The JSON Schema, e.g. {"type":"object","required":["name"]}; "$schema" selects the draft: ' +
          `${SUPPORTED_SCHEMAS} (not the version-less http://json-schema.org/schema#, which names none).`,
      ),
    data: anyJson(
      "The JSON value to validate, itself: a string holding JSON (such as http.request's `body`) is validated as " +
        "a string.",
    ),
  }),
  result: z.object({
    valid: z.boolean().describe("True when the data satisfies the schema."),
    errors: z
      .array(
        z.object({
          path: z.string().describe('JSON Pointer to the failing value, "" for the root.'),
          message: z.string().describe("What is wrong there."),
          keyword: z.string().describe("Schema keyword that failed, e.g. required, type, format."),
        }),
      )
      .describe(`Validation errors (at most ${MAX_ERRORS}); empty when valid.`),
    error_count: z.number().int().describe("Total number of validation errors."),
    ignored_formats: z
      .array(z.string())
      .describe(
        "`format` names the schema uses that this skill does not know (a typo, or idn-email, idn-hostname, iri, " +
          "iri-reference), so values were not checked against them; empty when every format was checked.",
      ),
  }),
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  examples: [
    {
      query: "check that this user object has a name and a valid email",
      params: {
        schema: {
          type: "object",
          required: ["name", "email"],
          properties: { name: { type: "string" }, email: { type: "string", format: "email" } },
        },
        data: { name: "Ann", email: "ann@example.com" },
      },
    },
    {
      query: "is this an array of at most 3 integers",
      params: { schema: { type: "array", items: { type: "integer" }, maxItems: 3 }, data: [1, 2, 3.5] },
    },
  ],
  async warm() {
    await loadAjv();
  },
  async run(params) {
    const { Ajv, Ajv2019, Ajv2020, draft06MetaSchema, addFormats } = await loadAjv();
    const draft = typeof params.schema.$schema === "string" ? params.schema.$schema : "";
    if (/draft-0[34]/.test(draft)) {
      throw new SkillError(`JSON Schema draft-03/04 is not supported: use ${SUPPORTED_SCHEMAS}`);
    }
    if (VERSIONLESS_SCHEMA.test(draft)) {
      throw new SkillError(
        `The "$schema" ${JSON.stringify(draft)} names no draft: it meant the latest one when the schema was ` +
          "written, and JSON Schema deprecated it after draft-04; name the draft the schema was written for: " +
          `${SUPPORTED_SCHEMAS}, or leave "$schema" out to validate as ${DEFAULT_DRAFT}`,
      );
    }
    // Ajv's strict mode, logged rather than thrown, names each unknown keyword; the logger keeps
    // its warnings out of the service's stdout, and the keywords are refused below.
    const draft2020 = draft === "" || draft.includes("2020-12");
    const draft2019 = draft2020 || draft.includes("2019-09");
    const unknownKeywords = new Set<string>();
    const logger = {
      log() {},
      error() {},
      warn(message: unknown) {
        const keyword = UNKNOWN_KEYWORD.exec(String(message))?.[1];
        if (keyword !== undefined && !isAnnotation(keyword) && !(draft2019 && RESOLVER_KEYWORDS.has(keyword)))
          unknownKeywords.add(keyword);
      },
    };
    // strict:false turns off the strict checks that refuse sound schemas (a `properties` without
    // `type`, a tuple without `minItems`); strictSchema:"log" keeps the unknown-keyword one.
    // ownProperties: Ajv's generated code otherwise tests presence as `data[name] !== undefined`, which sees
    // Object.prototype, so `required: ["toString"]` passed on {} and `properties.toString` checked the inherited
    // function. With it, presence is hasOwnProperty, in every draft and at every depth. (The data arrives as
    // ordinary JSON.parse objects; rebuilding it with null prototypes would also work, but costs a deep copy
    // and breaks again as soon as a caller passes ordinary objects.)
    // multipleOfPrecision: without it Ajv divides in binary floating point, and 19.99 was no
    // multiple of 0.01.
    // A `pattern` runs on JavaScript's backtracking RegExp, so a catastrophic one runs until the
    // execution's timeout. It holds one worker thread meanwhile, which FairSlots takes back while
    // another owner waits. A linear-time engine would change what patterns mean: RE2 rejects
    // lookarounds and backreferences, and V8's fallback engine does not take the `u` flag Ajv uses.
    const options = {
      allErrors: true,
      strict: false,
      strictSchema: "log" as const,
      logger,
      ownProperties: true,
      multipleOfPrecision: 12,
    };
    const ajv = draft2020
      ? new Ajv2020(options)
      : draft.includes("2019-09")
        ? new Ajv2019(options)
        : new Ajv(options).addMetaSchema(draft06MetaSchema);
    // Ajv's vocabulary has OpenAPI 3.0's `nullable` by default (its "nullable keyword is supported
    // by default"), which no JSON Schema draft defines: {"type":"string","nullable":true} took null,
    // where a 2020-12 validator refuses it. Removed, strict mode logs it as it logs any keyword the
    // draft does not define, and it is refused with them.
    ajv.removeKeyword("nullable");
    addFormats(ajv);
    if (draft !== "" && !knowsMetaSchema(ajv, draft)) {
      throw new SkillError(
        `Unsupported "$schema" ${JSON.stringify(draft)}: use ${SUPPORTED_SCHEMAS}, or leave "$schema" out to ` +
          `validate as ${DEFAULT_DRAFT}; other meta-schemas are not fetched`,
      );
    }
    let validate: ReturnType<typeof ajv.compile>;
    const ignoredFormats = new Set<string>();
    let valid: boolean;
    // Running the compiled schema fails like compiling it, for the same reason: a schema that
    // refers to itself with nothing between ({"$ref":"#"}) compiles, then recurses until the
    // stack overflows on any data (a longer cycle overflows in compile already). Data deep
    // enough to overflow a sound recursive schema cannot arrive: params nest 100 levels at most.
    try {
      // Checked here rather than in compile, whose message repeats each error of Ajv's
      // meta-schema as many times as the meta-schema's branches report it.
      if (ajv.validateSchema(params.schema) !== true) {
        throw new SkillError(
          `Invalid JSON Schema: ${schemaProblems(params.schema, ajv.errors ?? [], draft2020, draft !== "")}`,
        );
      }
      validate = compileNoting(ajv, params.schema, ignoredFormats);
      refuseUnknownKeywords(unknownKeywords, Object.keys(ajv.RULES.keywords), draft);
      valid = validate(params.data) === true;
    } catch (err) {
      if (err instanceof SkillError) throw err;
      // Ajv reads `nullable` beside `type` even once it is no keyword, and throws at
      // {"type":"null","nullable":false} or a `nullable` without `type`: such a schema is refused for
      // the keyword the draft does not define, as one that compiles is.
      refuseUnknownKeywords(unknownKeywords, Object.keys(ajv.RULES.keywords), draft);
      if (err instanceof RangeError && /call stack/i.test(err.message))
        throw new SkillError(REFERENCE_LOOP, { cause: err });
      throw new SkillError(`Invalid JSON Schema: ${errorMessage(err)}`, { cause: err });
    }
    const errors = (validate.errors ?? [])
      .map(describeError)
      .map((error) => explainJsonText(error, params.data));
    return {
      valid,
      errors: errors.slice(0, MAX_ERRORS),
      error_count: errors.length,
      ignored_formats: [...ignoredFormats],
    };
  },
});

/**
 * A stack overflow compiling or running a schema: its references lead back to where they
 * start with no keyword checking anything between ({"$ref":"#"}, a $ref cycle through $defs,
 * a $dynamicRef that finds no $dynamicAnchor of its name and so means the root). Ajv's own
 * words, "Maximum call stack size exceeded", named neither the cause nor the schema's part.
 */
const REFERENCE_LOOP =
  "Invalid JSON Schema: its references ($ref, $dynamicRef) lead back to where they start without a keyword " +
  'that checks anything in between (as {"$ref": "#"} does), so validating would never end: point each ' +
  "reference at a schema that checks something (a $dynamicRef at a $dynamicAnchor of its name), or remove it";

type AjvInstance = {
  compile(schema: object): ReturnType<InstanceType<typeof import("ajv").Ajv>["compile"]>;
  addFormat(name: string, format: true): unknown;
};

/**
 * Compiles `schema`, noting in `ignoredFormats` each `format` Ajv does not know. Strict mode
 * (kept for unknown keywords) throws at such a format where non-strict Ajv let every value
 * pass it: it is registered as one every value passes, as before, and the schema compiled
 * again, so the result can say which formats went unchecked rather than answer "valid".
 */
function compileNoting(ajv: AjvInstance, schema: object, ignoredFormats: Set<string>) {
  for (;;) {
    try {
      return ajv.compile(schema);
    } catch (err) {
      const format = UNKNOWN_FORMAT.exec(errorMessage(err))?.[1];
      if (format === undefined || ignoredFormats.has(format) || ignoredFormats.size >= MAX_UNKNOWN_FORMATS)
        throw err;
      ignoredFormats.add(format);
      ajv.addFormat(format, true);
    }
  }
}

/** Keywords that 2019-09 or 2020-12 define and the older drafts do not. */
const NEWER_KEYWORDS = new Set([
  "prefixItems",
  "dependentRequired",
  "dependentSchemas",
  "unevaluatedProperties",
  "unevaluatedItems",
  "minContains",
  "maxContains",
  "$dynamicRef",
  "$dynamicAnchor",
  "$recursiveRef",
  "$recursiveAnchor",
]);

/**
 * Fails a schema that uses keywords its draft does not define, naming them: Ajv ignores
 * them, so a misspelt `typ` or a keyword of another draft checked nothing and invalid data
 * was answered valid.
 */
function refuseUnknownKeywords(unknown: Set<string>, known: string[], draft: string): void {
  if (unknown.size === 0) return;
  const described = [...unknown].map((keyword) => {
    const meant =
      NEWER_KEYWORDS.has(keyword) || keyword === "additionalItems" ? [] : meantNames(keyword, known);
    return meant.length > 0 ? `"${keyword}" (did you mean "${meant.join('" or "')}"?)` : `"${keyword}"`;
  });
  const newer = [...unknown].filter((keyword) => NEWER_KEYWORDS.has(keyword));
  const draftHint =
    newer.length > 0
      ? `; ${newer.join(", ")} ${newer.length > 1 ? "are" : "is"} 2019-09/2020-12: drop "$schema" ${JSON.stringify(draft)} ` +
        "to validate as 2020-12"
      : unknown.has("additionalItems")
        ? '; additionalItems is draft-07\'s: in 2020-12 the first items go in "prefixItems" and "items" takes the ' +
          'rest, or declare "$schema": "http://json-schema.org/draft-07/schema#"'
        : "";
  const nullableHint = unknown.has("nullable")
    ? '; nullable is OpenAPI 3.0\'s: in JSON Schema list "null" among the types, as "type": ["string", "null"]'
    : "";
  throw new SkillError(
    `Unknown JSON Schema keyword${unknown.size > 1 ? "s" : ""} ${described.join(", ")}: the draft ` +
      `(${draft === "" ? DEFAULT_DRAFT : draft}) does not define ${unknown.size > 1 ? "them" : "it"}, so ` +
      `${unknown.size > 1 ? "they" : "it"} would check nothing; correct or remove ${unknown.size > 1 ? "them" : "it"} ` +
      `(annotations may be named "x-…")${draftHint}${nullableHint}`,
  );
}

/**
 * Whether Ajv holds the meta-schema `uri` names. Otherwise validateSchema threw Ajv's own
 * 'no schema with key or ref "…"', which does not say what to write instead; getSchema
 * itself throws on a URI it cannot parse ("urn:x").
 */
function knowsMetaSchema(ajv: { getSchema(uri: string): unknown }, uri: string): boolean {
  try {
    return ajv.getSchema(uri) !== undefined;
  } catch {
    return false;
  }
}

/**
 * What the meta-schema found wrong with a schema, each problem once, by JSON Pointer into
 * the schema. An `items` array, the draft-07 tuple form, is the usual mistake under 2020-12,
 * where the tuple is `prefixItems`: it gets that advice instead of the meta-schema's words.
 */
function schemaProblems(
  schema: unknown,
  errors: ErrorObject[],
  draft2020: boolean,
  declared: boolean,
): string {
  const itemsArrays = new Set<string>();
  const problems = new Set<string>();
  for (const error of errors) {
    const path = error.instancePath;
    if (draft2020 && path.endsWith("/items") && Array.isArray(valueAt(schema, path))) itemsArrays.add(path);
    else problems.add(`${path === "" ? "the root" : path} ${errorText(error)}`);
  }
  if (itemsArrays.size === 0) return [...problems].join("; ");
  const advice =
    `"items" is an array at ${[...itemsArrays].join(", ")}, which 2020-12 does not allow: list the schemas ` +
    'of the first items in "prefixItems", and give "items" (not "additionalItems") one schema for the ' +
    "items after them" +
    (declared
      ? ""
      : ', or declare the draft the schema was written for, e.g. "$schema": "http://json-schema.org/draft-07/schema#"');
  return [advice, ...problems].join("; ");
}

/** The value a JSON Pointer (RFC 6901) names in `document`, or undefined. */
function valueAt(document: unknown, pointer: string): unknown {
  let value = document;
  for (const token of pointer.split("/").slice(1)) {
    const key = token.replaceAll("~1", "/").replaceAll("~0", "~");
    if (typeof value !== "object" || value === null || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/**
 * A root type error on data that is a string holding a JSON object or array says so: an agent
 * passing on an http.request body, a string, read "must be object" and saw an object.
 */
function explainJsonText<T extends { path: string; message: string; keyword: string }>(
  error: T,
  data: unknown,
): T {
  if (error.path !== "" || error.keyword !== "type" || parseJsonText(data) === data) return error;
  return {
    ...error,
    message: `${error.message}, not a string: data is JSON text; pass the JSON value itself, not a string holding it`,
  };
}

function describeError(error: ErrorObject): { path: string; message: string; keyword: string } {
  return { path: error.instancePath, message: errorText(error), keyword: error.keyword };
}

/**
 * Ajv's message with what it leaves out: the member not allowed, the values allowed. A schema's
 * own problems are worded so too: `{"type": "strnig"}` was told "/type must be equal to one of
 * the allowed values" without the values.
 */
function errorText(error: ErrorObject): string {
  const message = error.message ?? "is invalid";
  const params = error.params as Record<string, unknown>;
  if (error.keyword === "additionalProperties" && typeof params.additionalProperty === "string") {
    return `${message}: ${JSON.stringify(params.additionalProperty)}`;
  }
  if (error.keyword === "enum" && Array.isArray(params.allowedValues)) {
    return `${message}: ${params.allowedValues.map((value) => JSON.stringify(value)).join(", ")}`;
  }
  return message;
}
