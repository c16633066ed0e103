import { describe, expect, it } from "vitest";
import { errorBody } from "../../src/core/errors.js";
import { unsafeJsonError } from "../../src/core/unsafe-json.js";

/** What `unsafeJsonError` says of `text`, parsed as every surface parses it. */
function refusalOf(text: string) {
  const error = unsafeJsonError(text, JSON.parse(text));
  return error && errorBody(error);
}

const PROTO =
  "a forbidden key (__proto__: in JavaScript it names an object's prototype, not a member); rename it";

describe("unsafeJsonError", () => {
  it("names the first prototype key, plain or escaped, at any depth", () => {
    expect(refusalOf('{"params":{"data":[{"x":{"__proto__":{"a":1}}}]}}')).toEqual({
      code: "invalid_request",
      message: `params.data.0.x.__proto__: ${PROTO}`,
      details: [{ path: "params.data.0.x.__proto__", message: PROTO }],
    });
    expect(refusalOf('{"a":{"\\u005f\\u005Fproto__":1},"b":{"__proto__":2}}')?.message).toBe(
      `a.__proto__: ${PROTO}`,
    );
    expect(refusalOf('{"__proto__":null}')?.details).toEqual([{ path: "__proto__", message: PROTO }]);
    expect(refusalOf('{"data":{"constructor":{"prototype":{"a":1}}}}')?.details?.[0]?.path).toBe(
      "data.constructor",
    );
  });

  it("takes the same names as plain data where they set no prototype", () => {
    for (const text of [
      '{"constructor":1,"prototype":{"a":1},"toString":"x"}',
      '{"constructor":{"name":"x"},"key":"__proto__","list":["__proto__"]}',
      '{"constructor":[1]}',
      '{"n":-0,"big":123456789012345678901234567890,"max":1.7976931348623157e308,"e":"1e400"}',
    ]) {
      expect(refusalOf(text), text).toBeUndefined();
    }
  });

  it("refuses a number beyond doubles, which JSON.parse makes Infinity", () => {
    const why =
      "a number too large to be read as one (beyond about ±1.8e308); send it as a string, or smaller";
    expect(refusalOf('{"data":[1,-1e400]}')).toEqual({
      code: "invalid_request",
      message: `data.1: ${why}`,
      details: [{ path: "data.1", message: why }],
    });
    expect(refusalOf("1E+309")?.details).toEqual([{ path: "(root)", message: why }]);
    expect(refusalOf(`{"n":1${"0".repeat(400)}}`)?.details?.[0]?.path).toBe("n");
  });

  it("names only the last keys of a deep place, and walks a deep document once", () => {
    const depth = 200_000;
    const text = `${'{"a":'.repeat(depth)}{"__proto__":1}${"}".repeat(depth)}`;
    const refusal = refusalOf(text);
    expect(refusal?.details?.[0]?.path).toBe(`….${"a.".repeat(11)}__proto__`);
  });
});
