import type { z } from "zod";
import { ServiceError } from "../core/errors.js";
import { parseRequest } from "../core/validation.js";

/**
 * The query string parsed with `schema`, or the contract's `invalid_request`. A parameter
 * the schema names given more than once (`?status=completed&status=failed`, which Fastify's
 * parser makes an array) is told so: the schema alone called it "not one of the options" or
 * "not a whole number" although each value was both. Parameters the schema
 * does not name are ignored, repeated or not, as they are once, unless close to a name it
 * has (`parseRequest`).
 */
export function parseQuery<S extends z.ZodObject>(schema: S, query: unknown): z.output<S> {
  const given = (query ?? {}) as Record<string, unknown>;
  for (const name of Object.keys(schema.shape)) {
    const value = given[name];
    if (Array.isArray(value)) {
      const message = `the parameter was given ${value.length} times; give it once`;
      throw new ServiceError("invalid_request", {
        message: `${name}: ${message}`,
        details: [{ path: name, message }],
      });
    }
  }
  return parseRequest(schema, given, "query");
}
