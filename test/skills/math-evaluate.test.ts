import { describe, expect, it } from "vitest";
import { z } from "zod";
import { mathEvaluate } from "../../skills/math-evaluate.js";
import { expectSkillError, runSkill } from "./run-skill.js";

describe("math.evaluate", () => {
  it.each([
    ["2^10", 1024, "number", "1024"],
    ["sqrt(144) + 0.15 * 80", 24, "number", "24"],
    ["a = 3; a^2", 9, "number", "9"],
    ["2 > 1", true, "boolean", "true"],
    ["0.1 + 0.2", 0.1 + 0.2, "number", "0.3"],
  ])("evaluates %s", async (expression, value, type, text) => {
    expect(await runSkill(mathEvaluate, { expression })).toEqual({ value, type, text });
  });

  it("returns units, matrices and complex numbers as strings", async () => {
    expect(await runSkill(mathEvaluate, { expression: "[[1,2],[3,4]] * 2" })).toEqual({
      value: "[[2, 4], [6, 8]]",
      type: "matrix",
      text: "[[2, 4], [6, 8]]",
    });
    expect((await runSkill(mathEvaluate, { expression: "sqrt(-4)" })).value).toBe("2i");
    expect(await runSkill(mathEvaluate, { expression: "2 inch to cm" })).toMatchObject({
      value: "5.08 cm",
      type: "unit",
    });
  });

  // mathjs is loaded from its minified bundle, which renames classes; typeOf reads them.
  it.each([
    ["typeOf(index(1))", "Index"],
    ["typeOf(help(sqrt))", "Help"],
    ["typeOf(5 cm)", "Unit"],
    ["typeOf([1, 2])", "DenseMatrix"],
  ])("names the class of a value as mathjs does: %s", async (expression, name) => {
    expect(await runSkill(mathEvaluate, { expression })).toMatchObject({ value: name, type: "string" });
  });

  it("returns Infinity as text because JSON cannot carry it", async () => {
    expect(await runSkill(mathEvaluate, { expression: "1/0" })).toMatchObject({
      value: "Infinity",
      type: "number",
    });
  });

  // A result's size is capped at 100,000 formatted characters. A dense matrix too large for
  // that is refused by its element count, before formatting (which took seconds for a
  // million elements); one just under the cap is returned.
  it("refuses a result too large to return, a large matrix before formatting it", async () => {
    const largest = await runSkill(mathEvaluate, { expression: "ones(33333)" });
    expect((largest.text as string).length).toBe(99_999);
    await expectSkillError(
      mathEvaluate,
      { expression: "ones(33334)" },
      /^The result is too large to return \(a matrix of 33334 elements\)$/,
    );
    await expectSkillError(
      mathEvaluate,
      { expression: "ones(1000, 1000)" },
      /^The result is too large to return \(a matrix of 1000000 elements\)$/,
    );
    await expectSkillError(
      mathEvaluate,
      { expression: "format(ones(34000))" },
      /^The result is too large to return \(10\d{4} characters formatted\)$/,
    );
  });

  it("fails a malformed expression with a SkillError saying what is wrong", async () => {
    await expectSkillError(
      mathEvaluate,
      { expression: "2+*3" },
      /Invalid expression "2\+\*3": Value expected \(char 3\)/,
    );
  });

  it("fails on an undefined symbol", async () => {
    const error = await expectSkillError(mathEvaluate, { expression: "x + 1" }, /Undefined symbol x$/);
    expect(error.message).not.toMatch(/\(write/);
  });

  it.each([
    ["10% of 200", /Undefined symbol of \(write 10% of 200 as 10% \* 200\)$/],
    ["5 plus 3", /Undefined symbol plus \(write "plus" as the operator \+\)$/],
    ["7 divided by 2", /Undefined symbol divided \(write "divided by" as the operator \/\)$/],
    ["12 x 4", /Undefined symbol x \(write \* to multiply: 5 \* 3\)$/],
  ])(
    "says how to write the operator word in %s, which mathjs read as an undefined variable",
    async (expression, message) => {
      await expectSkillError(mathEvaluate, { expression }, message);
    },
  );

  it.each([
    "import({}, {})",
    'evaluate("1+1")',
    'parse("1")',
    'simplify("x+x")',
    'createUnit("foo")',
    'compile("1")',
  ])("refuses the restricted function in %s", async (expression) => {
    await expectSkillError(mathEvaluate, { expression }, /is disabled/);
  });

  it("refuses config and typed, which would change the calculator for every later expression, by name", async () => {
    for (const expression of [
      'config({number: "BigNumber"})',
      "c = config; c()",
      "map([1], config)",
      "typed.clear()",
      "t = typed; t.clear()",
    ]) {
      await expectSkillError(mathEvaluate, { expression }, /(config|typed) is not available/);
    }
    expect(await runSkill(mathEvaluate, { expression: "1/3" })).toMatchObject({ type: "number" });
    expect(await runSkill(mathEvaluate, { expression: "sqrt(4)" })).toMatchObject({ value: 2 });
  });

  // Regression (audit 22 F17): the `type` field's description left out bigint, help and index.
  it.each([
    ["2^10", "number"],
    ["1 < 2", "boolean"],
    ['"text"', "string"],
    ["null", "null"],
    ["bignumber(2)", "bignumber"],
    ["bigint(5)", "bigint"],
    ["fraction(1, 3)", "fraction"],
    ["2i", "complex"],
    ["5 cm", "unit"],
    ["sparse([1, 2])", "matrix"],
    ["index(1)", "index"],
    ["help(sqrt)", "help"],
    ["{a: 1}", "object"],
  ])("publishes the type of %s, %s, among the result's types", async (expression, type) => {
    expect(await runSkill(mathEvaluate, { expression })).toMatchObject({ type });
    const published = z.toJSONSchema(mathEvaluate.result).properties?.type as {
      enum: string[];
      description: string;
    };
    expect(published.enum).toContain(type);
    expect(published.description).toContain(type);
  });

  it("describes a function with help, whose text runs the function's examples", async () => {
    expect(await runSkill(mathEvaluate, { expression: "help(sqrt)" })).toMatchObject({
      type: "help",
      text: expect.stringContaining("Name: sqrt"),
    });
  });

  it.each([
    ["eigs([[2,0],[0,3]]).values", "[2, 3]"],
    ["intersect([0,0],[10,10],[10,0],[0,10])", "[5, 5]"],
    ["schur([[1,0],[0,2]]).T", "[[1, 0], [0, 2]]"],
    ["lyap([[-2,0],[0,-3]], [[1,0],[0,1]])", "[[0.25, 0], [0, 0.16666666666667]]"],
  ])("computes %s with the tolerances from the instance's settings", async (expression, text) => {
    expect(await runSkill(mathEvaluate, { expression })).toMatchObject({ text });
  });

  it("refuses function definitions, which would allow unbounded recursion", async () => {
    await expectSkillError(
      mathEvaluate,
      { expression: "f(x) = x > 0 ? f(x-1) + f(x-1) : 1; f(60)" },
      /defining functions .* is not supported/,
    );
  });

  it.each([
    "zeros(100000, 100000)",
    "1:1e9",
    "range(1, 1e9)",
    "ones([1e4, 1e4])",
    "random([1e7])",
    // Fractions and BigNumbers are bounds too (a Fraction's range skipped the cap).
    "fraction(1):fraction(2e6)",
    "range(fraction(1), fraction(1e7))",
    "bignumber(1):bignumber(1e9)",
    // Infinite bounds: the range never ends (V8 aborted the process running it).
    "1:1e309",
    "+05:301e309",
    "range(1, Infinity)",
    "-Infinity:0",
    "range(0, 1, 1e-309)",
    // Infinities whose length reads NaN: 1, Infinity, Infinity… (found by bench/fuzz.mjs).
    "1:1e3091:1e309",
    "range(1, Infinity, Infinity)",
    "Infinity:Infinity",
  ])("refuses %s, which would exhaust memory", async (expression) => {
    await expectSkillError(mathEvaluate, { expression }, /would create more than 1000000 elements/);
  });

  it.each(["1:0:5", "range(1, Infinity, 0)"])(
    "leaves a zero step to mathjs's own error: %s",
    async (expression) => {
      await expectSkillError(mathEvaluate, { expression }, /Step must be non-zero/);
    },
  );

  // Regression: capping `range` replaced the transform expressions use, so every range
  // lost its end (sum(1:100) was 4950) and index slices took the wrong elements.
  it.each([
    ["sum(1:100)", 5050],
    ["range(1, 4)", "[1, 2, 3, 4]"],
    ["1:2:9", "[1, 3, 5, 7, 9]"],
    ["4:-1:1", "[4, 3, 2, 1]"],
    ["concat(1:3, 4:5)", "[1, 2, 3, 4, 5]"],
    ["a = [10, 20, 30, 40]; a[2:end]", "[20, 30, 40]"],
    ["A = [1, 2, 3; 4, 5, 6]; A[:, 2:3]", "[[2, 3], [5, 6]]"],
    ["x = [1, 2, 3]; x[1:2] = [9, 8]; x", "[9, 8, 3]"],
  ])("includes the end of a range, as mathjs's expression syntax does: %s", async (expression, value) => {
    expect((await runSkill(mathEvaluate, { expression })).value).toEqual(value);
  });

  it("caps a range at exactly the element limit, end included", async () => {
    expect((await runSkill(mathEvaluate, { expression: "max(1:1000000)" })).value).toBe(1_000_000);
    await expectSkillError(
      mathEvaluate,
      { expression: "max(1:1000001)" },
      /would create more than 1000000 elements/,
    );
  });

  // Regression: the example answered its "mean and standard deviation" query with std only.
  it("answers its catalog example for the mean and standard deviation with both", async () => {
    const example = mathEvaluate.examples?.find(({ query }) =>
      query.startsWith("mean and standard deviation"),
    );
    expect(example).toBeDefined();
    const result = await runSkill(mathEvaluate, example?.params ?? {});
    expect(result).toMatchObject({ type: "matrix", text: "[5, 2.1380899352994]" });
  });

  it("keeps no variables between executions", async () => {
    await runSkill(mathEvaluate, { expression: "secret = 42" });
    await expectSkillError(mathEvaluate, { expression: "secret" }, /Undefined symbol secret/);
  });

  it("rejects an empty or overlong expression at the schema", () => {
    expect(mathEvaluate.params.safeParse({ expression: "   " }).success).toBe(false);
    expect(mathEvaluate.params.safeParse({ expression: "1+".repeat(1500) }).success).toBe(false);
  });

  it("fails an expression with no visible result", async () => {
    await expectSkillError(mathEvaluate, { expression: "a = 2;" }, /no visible result/);
    await expectSkillError(mathEvaluate, { expression: "sin" }, /function, not a value/);
  });
});

// Audit 26 F14: everyday notations failed with "Undefined symbol" or a bare parser error.
describe("math.evaluate's everyday notations", () => {
  it.each([
    ["3 × 4", 12],
    ["10 ÷ 4", 2.5],
    ["5 − 3", 2],
    ["2**10", 1024],
    ["2**3**2", 512],
    ["-2**2", -4],
    ["2**-1", 0.5],
  ])("reads %s as mathjs's operators", async (expression, value) => {
    expect((await runSkill(mathEvaluate, { expression })).value).toBe(value);
  });

  it("leaves the operators inside a string as they are", async () => {
    expect((await runSkill(mathEvaluate, { expression: '"a**b × c"' })).value).toBe("a**b × c");
  });

  it.each(["$86.40 * 0.17", "86.40 € * 2", "£5 + £3"])(
    "refuses the currency sign in %s, saying to write the amount alone",
    async (expression) => {
      await expectSkillError(
        mathEvaluate,
        { expression },
        /write amounts without the currency sign .*e\.g\. 86\.40 \* 0\.17/,
      );
    },
  );

  it.each(["1,000 + 1", "sum(1,000,000)", "2,050 / 2"])(
    "refuses or explains the thousands separator in %s",
    async (expression) => {
      await expectSkillError(
        mathEvaluate,
        { expression },
        /write numbers without thousands separators: 1000 for 1,000/,
      );
    },
  );

  it("still reads commas between arguments and values", async () => {
    expect((await runSkill(mathEvaluate, { expression: "max(1,234)" })).value).toBe(234);
    expect((await runSkill(mathEvaluate, { expression: "[100,200,300]" })).text).toBe("[100, 200, 300]");
  });

  // Left open in session 26: sum(1,234) was 235 without a word, where a user may have meant 1234.
  it("says in a note how it read digits grouped like a thousands separator, keeping mathjs's reading", async () => {
    expect(await runSkill(mathEvaluate, { expression: "sum(1,234)" })).toEqual({
      value: 235,
      type: "number",
      text: "235",
      note:
        "Read 1,234 as 1 and 234: a comma separates a function's arguments or a matrix's values. If it was " +
        "one number, write 1234, without thousands separators.",
    });
    expect((await runSkill(mathEvaluate, { expression: "[100,200,300]" })).note).toMatch(
      /^Read 100,200,300 as 100, 200 and 300: .* write 100200300,/,
    );
    expect((await runSkill(mathEvaluate, { expression: "max(1,234.5, 5,678)" })).note).toMatch(
      /^Read 1,234\.5 as 1 and 234\.5; 5,678 as 5 and 678: .* If they were numbers, write 1234\.5, 5678,/,
    );
  });

  // Found by the skills audit (session 39): a comma between a function's parameters, which
  // differ in meaning, is no thousands separator.
  it.each(["pow(2,100)", "gcd(120,360)", "zeros(2,100)", "round(3.14159,2)", "2 * pow(2,100) + (3)"])(
    "adds no note to %s, whose comma separates parameters",
    async (expression) => {
      expect(await runSkill(mathEvaluate, { expression })).not.toHaveProperty("note");
    },
  );

  it("still notes grouped digits among a list's values inside other brackets", async () => {
    expect((await runSkill(mathEvaluate, { expression: "pow(max(1,234), 1)" })).note).toMatch(
      /^Read 1,234 as/,
    );
    expect((await runSkill(mathEvaluate, { expression: "round(sum([1,234]))" })).note).toMatch(
      /^Read 1,234 as/,
    );
  });

  it.each(["max(1, 234)", "sum(12,34)", "max(1234,567)", 'concat("1,234", "a")', "sum([1, 2, 3])"])(
    "adds no note to %s, where no digits are grouped like a thousands separator",
    async (expression) => {
      expect(await runSkill(mathEvaluate, { expression })).not.toHaveProperty("note");
    },
  );

  it("says in its description that log is natural and how to write the notations it does not read", () => {
    expect(mathEvaluate.description).toMatch(
      /`log\(x\)` is the natural logarithm \(log10\(x\) for base 10\)/,
    );
    expect(mathEvaluate.description).toMatch(/without thousands separators or currency signs/);
  });
});

describe("math.evaluate's compiled-expression cache", () => {
  it("gives the same answer to a repeated expression, without sharing variables between calls", async () => {
    const expression = "a = 5; a * 3";
    expect((await runSkill(mathEvaluate, { expression })).value).toBe(15);
    expect((await runSkill(mathEvaluate, { expression })).value).toBe(15);
    // `a` was assigned in the cached expression's earlier runs; it must not exist here.
    await expectSkillError(mathEvaluate, { expression: "a + 1" }, /a/);
  });

  it("keeps refusing a malformed expression on every call", async () => {
    await expectSkillError(mathEvaluate, { expression: "2+*3" }, /Invalid expression/);
    await expectSkillError(mathEvaluate, { expression: "2+*3" }, /Invalid expression/);
  });
});

describe("math.evaluate's text of small integers", () => {
  it("matches mathjs's own formatting on both sides of the small-integer shortcut", async () => {
    for (const [expression, text] of [
      ["2+3*4", "14"],
      ["-99999", "-99999"],
      ["99999", "99999"],
      ["100000", "100000"],
      ["0", "0"],
    ] as const) {
      expect((await runSkill(mathEvaluate, { expression })).text).toBe(text);
    }
  });
});

// Regression (audit 22 F9): mathjs's default switched to exponent notation from 1e5, so an
// agent quoting `text` wrote "3.98752e+5" for 17 * 23456.
describe("math.evaluate's text notation", () => {
  it.each([
    ["17 * 23456", "398752"],
    ["2^20", "1048576"],
    ["-2^40", "-1099511627776"],
    ["1e20 + 0.5", "100000000000000000000"],
    ["1e21", "1e+21"],
    ["0.0000001", "0.0000001"],
    ["0.00000001", "1e-8"],
    ["[100000, 2^20]", "[100000, 1048576]"],
    ["bignumber(10)^20", "100000000000000000000"],
  ])("writes %s as %s: plain from 1e-7 up to 1e21", async (expression, text) => {
    expect((await runSkill(mathEvaluate, { expression })).text).toBe(text);
  });
});

describe("math.evaluate's light calls (run on the main thread, unisolated)", () => {
  const isLight = (expression: string) => mathEvaluate.isLightCall?.({ expression });

  it("judges plain scalar arithmetic light once mathjs is loaded", async () => {
    await mathEvaluate.warm?.();
    for (const expression of [
      "2+3*4",
      "sqrt(2) * pi",
      "-(1.5e3 / 7) % 4 ^ 2",
      "max(1, 2, abs(-3)) >= 3",
      "2pi",
    ]) {
      expect(isLight(expression), expression).toBe(true);
    }
  });

  it("isolates everything whose cost is not bounded by its length, or that it cannot parse", async () => {
    await mathEvaluate.warm?.();
    for (const expression of [
      "det(identity(800) + ones(800, 800))",
      "sum(1:1e6)",
      "5 cm to inch",
      "a = 3; a^2",
      "factorial(170)",
      "[1, 2] * 2",
      "f(2)",
      "2+*3",
      Array.from({ length: 300 }, () => "1").join("+"),
    ]) {
      expect(isLight(expression), expression).toBe(false);
    }
  });
});

describe("math.evaluate's precision with large integers", () => {
  it.each([
    ["123456789012345", "123456789012345"],
    ["9007199254740991", "9007199254740991"],
    ["-1234567890123456", "-1234567890123456"],
    ["[123456789012345, 0.1 + 0.2]", "[123456789012345, 0.3]"],
    ['bignumber("123456789012345678")', "123456789012345678"],
    ['bignumber("123456789") * 987654321', "121932631112635269"],
  ])("writes the exact integer %s whole in text, not rounded to 14 digits", async (expression, text) => {
    expect((await runSkill(mathEvaluate, { expression })).text).toBe(text);
  });

  it("says in a note that an integer result beyond 2^53 - 1 is not exact, pointing to bignumber", async () => {
    const answer = await runSkill(mathEvaluate, { expression: "123456789 * 987654321" });
    expect(answer.note).toMatch(/beyond 9007199254740991 .*last digits may be wrong.*bignumber\(/);
  });

  it("says in a note how it read an integer literal no floating-point number holds", async () => {
    const answer = await runSkill(mathEvaluate, { expression: "12345678901234567891 % 10" });
    expect(answer.note).toMatch(/Read 12345678901234567891 as 12345678901234567168: beyond 9007199254740991/);
    // Once: the literal's note explains the inexact result too.
    const { note } = await runSkill(mathEvaluate, { expression: "9007199254740993" });
    expect(note).toMatch(/^Read 9007199254740993 as 9007199254740992: beyond/);
    expect(String(note).match(/bignumber/g)).toHaveLength(1);
  });

  it.each([
    "2^53 - 1",
    "1e21",
    "0.1 + 0.2",
    "9007199254740991",
    '"12345678901234567891"',
    "1.12345678901234567",
  ])("adds no precision note to %s", async (expression) => {
    expect(await runSkill(mathEvaluate, { expression })).not.toHaveProperty("note");
  });

  it("keeps both notes when digits are grouped and a result is inexact", async () => {
    const { note } = await runSkill(mathEvaluate, { expression: "prod(1,234) * 1e17" });
    expect(note).toMatch(/Read 1,234 as 1 and 234.*The result is beyond 9007199254740991/);
  });
});
