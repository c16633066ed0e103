import { createRequire } from "node:module";
import type { ErrorObject } from "ajv";
import { z } from "zod";
import { defineSkill, SkillError } from "../src/core/skills/skill.js";
import { errorMessage } from "./lib/errors.js";
import { anyJson } from "./lib/json-input.js";
import { lazy } from "./lib/lazy.js";

/** Enough to act on; a schema that fails in thousands of places says so in error_count. */
const MAX_ERRORS = 100;

/** The `$schema` values that select a draft, as Ajv's meta-schemas name them ("#" optional). */
const SUPPORTED_SCHEMAS =
  "http://json-schema.org/draft-07/schema# (the default), http://json-schema.org/draft-06/schema#, " +
  "https://json-schema.org/draft/2019-09/schema or https://json-schema.org/draft/2020-12/schema";

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
    "Checks JSON data against a JSON Schema (draft-06, draft-07, 2019-09 or 2020-12, with formats such as email, date-time, uri) " +
    "and returns `valid` plus every error as {path, message}. Use it to verify an API payload, config or generated " +
    "output before using it.",
  tags: ["json", "schema", "validate", "jsonschema", "check", "ajv"],
  params: z.object({
    schema: z
      .record(z.string(), z.unknown())
      .describe(
        'The JSON Schema, e.g. {"type":"object","required":["name"]}; "$schema" selects the draft: ' +
          `${SUPPORTED_SCHEMAS} (not the version-less http://json-schema.org/schema#, which names none).`,
      ),
    data: anyJson("The JSON value to validate."),
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
          `${SUPPORTED_SCHEMAS}, or leave "$schema" out to validate as draft-07`,
      );
    }
    // Ajv only warns of a format it does not know (strict:false, below) and then lets every value
    // pass it; the names are collected to say so in the result rather than answer "valid" unchecked.
    const ignoredFormats = new Set<string>();
    const logger = {
      log() {},
      error() {},
      warn(message: unknown) {
        const unknownFormat = /^unknown format "(.*)" ignored in schema at path "/s.exec(String(message));
        if (unknownFormat?.[1] !== undefined) ignoredFormats.add(unknownFormat[1]);
      },
    };
    // strict:false accepts the extra keywords people put in schemas ("example", "x-..."); the logger keeps
    // Ajv's warnings out of the service's stdout.
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
      logger,
      ownProperties: true,
      multipleOfPrecision: 12,
    };
    const draft2020 = draft.includes("2020-12");
    const ajv = draft2020
      ? new Ajv2020(options)
      : draft.includes("2019-09")
        ? new Ajv2019(options)
        : new Ajv(options).addMetaSchema(draft06MetaSchema);
    addFormats(ajv);
    if (draft !== "" && !knowsMetaSchema(ajv, draft)) {
      throw new SkillError(
        `Unsupported "$schema" ${JSON.stringify(draft)}: use ${SUPPORTED_SCHEMAS}, or leave "$schema" out to ` +
          "validate as draft-07; other meta-schemas are not fetched",
      );
    }
    let validate: ReturnType<typeof ajv.compile>;
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
          `Invalid JSON Schema: ${schemaProblems(params.schema, ajv.errors ?? [], draft2020)}`,
        );
      }
      validate = ajv.compile(params.schema);
      valid = validate(params.data) === true;
    } catch (err) {
      if (err instanceof SkillError) throw err;
      throw new SkillError(`Invalid JSON Schema: ${errorMessage(err)}`, { cause: err });
    }
    const errors = (validate.errors ?? []).map(describeError);
    return {
      valid,
      errors: errors.slice(0, MAX_ERRORS),
      error_count: errors.length,
      ignored_formats: [...ignoredFormats],
    };
  },
});

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
function schemaProblems(schema: unknown, errors: ErrorObject[], draft2020: boolean): string {
  const itemsArrays = new Set<string>();
  const problems = new Set<string>();
  for (const error of errors) {
    const path = error.instancePath;
    if (draft2020 && path.endsWith("/items") && Array.isArray(valueAt(schema, path))) itemsArrays.add(path);
    else problems.add(`${path === "" ? "the root" : path} ${error.message ?? "is invalid"}`);
  }
  if (itemsArrays.size === 0) return [...problems].join("; ");
  const advice =
    `"items" is an array at ${[...itemsArrays].join(", ")}, which 2020-12 does not allow: list the schemas ` +
    'of the first items in "prefixItems", and give "items" (not "additionalItems") one schema for the ' +
    "items after them";
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

function describeError(error: ErrorObject): { path: string; message: string; keyword: string } {
  let message = error.message ?? "is invalid";
  const params = error.params as Record<string, unknown>;
  if (error.keyword === "additionalProperties" && typeof params.additionalProperty === "string") {
    message = `${message}: ${JSON.stringify(params.additionalProperty)}`;
  } else if (error.keyword === "enum" && Array.isArray(params.allowedValues)) {
    message = `${message}: ${params.allowedValues.map((value) => JSON.stringify(value)).join(", ")}`;
  }
  return { path: error.instancePath, message, keyword: error.keyword };
}
