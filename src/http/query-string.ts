import type { z } from "zod";
import { ServiceError } from "../core/errors.js";
import { meantNames } from "../core/member-names.js";
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

/**
 * Refuses a query parameter of a POST that names a member of its JSON body, exactly or
 * closely (`?async=true`, `?Limit=3`): the route reads only the body, so the request would
 * run without it, with the default in its place. The route reads nothing else of its
 * query, and refuses nothing else there.
 */
export function refuseBodyMembersInQuery(bodySchema: z.ZodObject, query: unknown): void {
  const members = Object.keys(bodySchema.shape);
  const details = Object.keys((query ?? {}) as Record<string, unknown>).flatMap((name) => {
    const [meant] = members.includes(name) ? [name] : meantNames(name, members);
    if (meant === undefined) return [];
    const message = `a member of the JSON body, not a query parameter: send {${JSON.stringify(meant)}: ...} in the body`;
    return [{ path: name, message }];
  });
  const [first] = details;
  if (first)
    throw new ServiceError("invalid_request", { message: `${first.path}: ${first.message}`, details });
}
