import type { ErrorObject } from "ajv";
import { z } from "zod";
import { defineSkill, SkillError } from "../src/core/skills/skill.js";
import { errorMessage } from "./lib/errors.js";
import { anyJson } from "./lib/json-input.js";
import { lazy } from "./lib/lazy.js";

/** Enough to act on; a schema that fails in thousands of places says so in error_count. */
const MAX_ERRORS = 100;

const loadAjv = lazy(async () => {
  const [{ Ajv }, { Ajv2019 }, { Ajv2020 }, formats] = await Promise.all([
    import("ajv"),
    import("ajv/dist/2019.js"),
    import("ajv/dist/2020.js"),
    import("ajv-formats"),
  ]);
  return { Ajv, Ajv2019, Ajv2020, addFormats: formats.default.default ?? formats.default };
});

export const jsonValidate = defineSkill({
  id: "json.validate",
  title: "Validate JSON against a JSON Schema",
  description:
    "Checks JSON data against a JSON Schema (draft-07, 2019-09 or 2020-12, with formats such as email, date-time, uri) " +
    "and returns `valid` plus every error as {path, message}. Use it to verify an API payload, config or generated " +
    "output before using it.",
  tags: ["json", "schema", "validate", "jsonschema", "check", "ajv"],
  params: z.object({
    schema: z
      .record(z.string(), z.unknown())
      .describe('The JSON Schema, e.g. {"type":"object","required":["name"]}; "$schema" selects the draft.'),
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
    const { Ajv, Ajv2019, Ajv2020, addFormats } = await loadAjv();
    const draft = typeof params.schema.$schema === "string" ? params.schema.$schema : "";
    // strict:false accepts the extra keywords people put in schemas ("example", "x-..."); logger:false keeps
    // Ajv's warnings out of the service's stdout.
    if (/draft-0[34]/.test(draft)) {
      throw new SkillError("JSON Schema draft-03/04 is not supported: use draft-07, 2019-09 or 2020-12");
    }
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
      logger: false as const,
      ownProperties: true,
      multipleOfPrecision: 12,
    };
    const ajv = draft.includes("2020-12")
      ? new Ajv2020(options)
      : draft.includes("2019-09")
        ? new Ajv2019(options)
        : new Ajv(options);
    addFormats(ajv);
    let validate: ReturnType<typeof ajv.compile>;
    let valid: boolean;
    // Running the compiled schema fails like compiling it, for the same reason: a schema that
    // refers to itself with nothing between ({"$ref":"#"}) compiles, then recurses until the
    // stack overflows on any data (a longer cycle overflows in compile already). Data deep
    // enough to overflow a sound recursive schema cannot arrive: params nest 100 levels at most.
    try {
      validate = ajv.compile(params.schema);
      valid = validate(params.data) === true;
    } catch (err) {
      throw new SkillError(`Invalid JSON Schema: ${errorMessage(err)}`, { cause: err });
    }
    const errors = (validate.errors ?? []).map(describeError);
    return { valid, errors: errors.slice(0, MAX_ERRORS), error_count: errors.length };
  },
});

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
