import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { firstJsonFault } from "../../src/core/json-syntax.js";

const parses = (text: string) => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

describe("firstJsonFault", () => {
  it("finds no fault in JSON, and a fault in anything JSON.parse refuses", () => {
    fc.assert(
      fc.property(fc.json(), (text) => {
        expect(firstJsonFault(text)).toBeUndefined();
      }),
    );
    // Text near JSON: JSON with a character changed, dropped or added.
    const nearJson = fc
      .tuple(fc.json(), fc.nat(), fc.constantFrom("", ",", "'", "}", "]", '"', "\n", "\\", "x", "0"))
      .map(
        ([text, at, char]) =>
          text.slice(0, at % (text.length + 1)) + char + text.slice((at % (text.length + 1)) + 1),
      );
    fc.assert(
      fc.property(fc.oneof(nearJson, fc.string()), (text) => {
        expect(firstJsonFault(text) === undefined, text).toBe(parses(text));
      }),
      { numRuns: 2000 },
    );
  });

  it("names what it finds where it is", () => {
    expect(firstJsonFault('{"a":"x\ty"}')).toEqual({ kind: "control", index: 7 });
    expect(firstJsonFault('{"a":[1,2')).toEqual({ kind: "end" });
    expect(firstJsonFault('{"a":tru')).toEqual({ kind: "end" });
    expect(firstJsonFault("{a:1}")).toEqual({ kind: "name", index: 1 });
    expect(firstJsonFault("[1,]")).toEqual({ kind: "unexpected", index: 3 });
    expect(firstJsonFault('{"a":1,}')).toEqual({ kind: "unexpected", index: 7 });
    expect(firstJsonFault('"\\x"')).toEqual({ kind: "unexpected", index: 2 });
    expect(firstJsonFault("\uFEFF{}")).toBeUndefined();
    // Any depth, without recursion.
    expect(firstJsonFault(`${"[".repeat(200_000)}${"]".repeat(200_000)}`)).toBeUndefined();
  });
});
