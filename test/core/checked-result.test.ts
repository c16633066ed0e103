import { describe, expect, it } from "vitest";
import { z } from "zod";
import { checkResult } from "../../src/core/execution/checked-result.js";

describe("checkResult", () => {
  const rows = z.object({ rows: z.array(z.record(z.string(), z.string())) });

  it("gives back the skill's own output, a key named __proto__ included, when the schema only checks it", () => {
    // JSON.parse makes "__proto__" an own property, as Object.fromEntries does in a skill.
    const output = { rows: [JSON.parse('{"id":"1","__proto__":"x","toString":"y"}')] };
    const checked = checkResult(rows, output);
    expect(checked).toEqual({ success: true, result: output });
    expect(checked.success && checked.result).toBe(output);
    expect(JSON.stringify(checked.success && checked.result)).toBe(
      '{"rows":[{"id":"1","__proto__":"x","toString":"y"}]}',
    );
  });

  it.each([
    ["transforms", z.object({ text: z.string().trim() }), { text: " a " }, { text: "a" }],
    ["defaults", z.object({ n: z.number().default(1) }), {}, { n: 1 }],
    ["strips an undeclared key", z.object({ n: z.number() }), { n: 1, secret: "s" }, { n: 1 }],
    [
      "strips a nested undeclared key",
      z.object({ items: z.array(z.object({ n: z.number() })) }),
      { items: [{ n: 1, secret: "s" }] },
      { items: [{ n: 1 }] },
    ],
  ])("gives back what the schema makes of the output when it %s", (_what, schema, output, expected) => {
    const checked = checkResult(schema, output);
    expect(checked.success && JSON.stringify(checked.result)).toBe(JSON.stringify(expected));
  });

  it("refuses an output its schema refuses, with zod's issues", () => {
    const checked = checkResult(rows, { rows: [{ id: 1 }] });
    expect(checked.success).toBe(false);
    expect(!checked.success && checked.issues[0]?.path).toEqual(["rows", 0, "id"]);
  });
});
