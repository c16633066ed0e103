import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { checkIdempotencyKey } from "../../src/core/api-schemas.js";
import { buildOpenApiDocument } from "../../src/http/openapi.js";

type Parameter = { name: string; in: string; schema: Record<string, unknown> };
type Document = { paths: Record<string, { post?: { parameters?: Parameter[] } }> };

/** Whether the core takes `key` as an Idempotency-Key. */
function taken(key: string): boolean {
  try {
    checkIdempotencyKey(key);
    return true;
  } catch {
    return false;
  }
}

// Audit 24, code #23: the document hand-wrote the header's schema as a string of at most
// 255 characters, so a client generated from it sent keys (a leading space, a tab,
// non-ASCII) that every surface refuses with invalid_request.
describe("the OpenAPI document's Idempotency-Key header", () => {
  const doc = buildOpenApiDocument("0.0.0") as Document;
  const header = doc.paths["/v1/execute"]?.post?.parameters?.find(
    (parameter) => parameter.in === "header" && parameter.name === "Idempotency-Key",
  );

  it("takes exactly the keys POST /v1/execute takes", () => {
    expect(header, "the header is documented").toBeDefined();
    const fits = new Ajv2020({ strict: false }).compile(header?.schema ?? {});
    const keys = [
      "a",
      "0b8f2a6e-1c1e-4a8e-9d7c-3f2b1a0e9c4d",
      "with spaces inside",
      "k".repeat(255),
      "k".repeat(256),
      "",
      " leading",
      "trailing ",
      "tab\tinside",
      "ключ",
      "café",
    ];
    const verdicts = keys.map((key) => ({ key, documented: fits(key), taken: taken(key) }));
    expect(verdicts).toEqual(verdicts.map((verdict) => ({ ...verdict, documented: verdict.taken })));
    // Both kinds are in the list, so agreement is not vacuous.
    expect(new Set(verdicts.map((verdict) => verdict.taken))).toEqual(new Set([true, false]));
  });
});
