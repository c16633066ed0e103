import { describe, expect, it } from "vitest";
import { FIELD_NAMES } from "../../src/core/discovery/document.js";
import { buildOpenApiDocument } from "../../src/http/openapi.js";

type Schema = {
  type?: string;
  description?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  propertyNames?: { enum?: string[] };
};

const components = (buildOpenApiDocument("0.0.0") as { components: { schemas: Record<string, Schema> } })
  .components.schemas;

/** The properties of `schema` that say nothing of what they mean, by name. */
function undescribed(schema: Schema | undefined): string[] {
  return Object.entries(schema?.properties ?? {})
    .filter(([, property]) => !property.description)
    .map(([name]) => name);
}

// Audit 24, code #18: the answers were typed twice (core interfaces, HTTP zod), and what
// each field means stayed in the core's doc comments: the document gave an agent `lexical`,
// `semantic` or `lightAsyncIo` with no word on what they are.
describe("the OpenAPI document's discover answer and skill", () => {
  const result = components.DiscoverResponse?.properties?.results?.items;
  const match = result?.properties?.match;

  it("says what each field of a result's match evidence and of the ranking means", () => {
    expect(match?.description).toBeTruthy();
    expect(undescribed(match)).toEqual([]);
    expect(undescribed(match?.properties?.usage)).toEqual([]);
    expect(undescribed(components.DiscoverResponse?.properties?.ranking)).toEqual([]);
  });

  it("names the fields a match may list words of: the skill's searchable fields", () => {
    expect(match?.properties?.fields?.propertyNames?.enum).toEqual([...FIELD_NAMES]);
  });

  it("says what each of a skill's annotations and examples' fields means", () => {
    const skill = components.SkillDetail?.properties;
    expect(undescribed(skill?.annotations)).toEqual([]);
    expect(undescribed(skill?.examples?.items)).toEqual([]);
  });
});

// Audit 27 F2: a request is refused 400 before routing (no Host, too many header lines, not
// HTTP/1.1) whatever its path, and 429 whenever a key or address is over its limit; the
// document's own operation listed only its 200.
describe("the OpenAPI document's refusals every operation may answer", () => {
  const paths = (
    buildOpenApiDocument("0.0.0") as {
      paths: Record<string, Record<string, { responses?: Record<string, { description?: string }> }>>;
    }
  ).paths;

  it("lists 400 invalid_request and 429 rate_limit_exceeded on every operation, the document's own included", () => {
    for (const [path, operations] of Object.entries(paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        if (typeof operation !== "object" || !operation.responses) continue;
        expect(operation.responses["400"]?.description?.split(", "), `${method} ${path}`).toContain(
          "invalid_request",
        );
        expect(operation.responses["429"]?.description?.split(", "), `${method} ${path}`).toContain(
          "rate_limit_exceeded",
        );
      }
    }
  });
});
