import { describe, expect, it } from "vitest";
import { jsonQuery } from "../../skills/json-query.js";
import { jsonValidate } from "../../skills/json-validate.js";
import { expectSkillError, runSkill } from "./run-skill.js";

const people = {
  people: [
    { name: "Ann", age: 34 },
    { name: "Bob", age: 25 },
    { name: "Cy", age: 41 },
  ],
};

describe("json.query", () => {
  it.each([
    ["people[?age > `30`].name", ["Ann", "Cy"]],
    ["length(people)", 3],
    ["sort_by(people, &age)[0].name", "Bob"],
    ["max_by(people, &age).{who: name}", { who: "Cy" }],
    ["missing.field", null],
  ])("evaluates %s", async (expression, expected) => {
    expect(await runSkill(jsonQuery, { data: people, expression })).toEqual({ result: expected });
  });

  it("works on top-level arrays and scalars", async () => {
    expect(await runSkill(jsonQuery, { data: [1, 2, 3], expression: "[1]" })).toEqual({ result: 2 });
    expect(await runSkill(jsonQuery, { data: "text", expression: "@" })).toEqual({ result: "text" });
  });

  it("queries JSON text, such as http.request's body, as the document it holds", async () => {
    expect(await runSkill(jsonQuery, { data: '{"a":1}', expression: "a" })).toEqual({ result: 1 });
    expect(await runSkill(jsonQuery, { data: '\n  [{"id":1},{"id":2}]\n', expression: "[].id" })).toEqual({
      result: [1, 2],
    });
  });

  it("keeps a string that is not JSON text an object or array as a string", async () => {
    expect(await runSkill(jsonQuery, { data: "42", expression: "@" })).toEqual({ result: "42" });
    expect(await runSkill(jsonQuery, { data: "{not json", expression: "@" })).toEqual({
      result: "{not json",
    });
  });

  it("fails a null answer from JSON text cut short, saying it is not valid JSON, not that nothing matched", async () => {
    const cut = '{"items":[{"id":1,"name":"item1"},{"id":2,"na';
    await expectSkillError(
      jsonQuery,
      { data: cut, expression: "items[0].id" },
      /data is a string that starts like JSON but is not valid JSON \(.*\), so "items\[0\]\.id" found nothing in it: .*max_bytes/,
    );
    // What it does find in the string stands: it is a string, and may be asked about as one.
    expect(await runSkill(jsonQuery, { data: cut, expression: "length(@)" })).toEqual({ result: cut.length });
  });

  it.each([
    [
      "a * `10`",
      { a: 1e308 },
      /^"a \* `10`" computes Infinity at result: a number beyond what JSON holds \(about ±1\.8e308\), which JSON cannot carry; check the arithmetic/,
    ],
    ["[a, b % `0`]", { a: 1, b: 2 }, /computes NaN at result\[1\]: not a number/],
    ["{x: {y: to_number('-1e400')}}", {}, /computes -Infinity at result\.x\.y: a number beyond/],
  ])(
    "fails %s, whose arithmetic gives a number JSON cannot carry, saying where",
    async (expression, data, message) => {
      await expectSkillError(jsonQuery, { data, expression }, message);
    },
  );

  it("fails a syntax error with a SkillError naming the expression", async () => {
    await expectSkillError(
      jsonQuery,
      { data: people, expression: "people[" },
      /Invalid JMESPath expression "people\[": /,
    );
  });

  it("fails a type error at evaluation with a SkillError", async () => {
    await expectSkillError(
      jsonQuery,
      { data: people, expression: "abs(people)" },
      /Could not apply "abs\(people\)": .*abs\(\)/,
    );
    await expectSkillError(
      jsonQuery,
      { data: people, expression: "group_by(people, &age)" },
      /Could not apply .*: group_by\(\) needs a string key, received number/,
    );
  });

  // Regression (audit 22 F17): JMESPath reads a-b as a minus b, and the error said only
  // "not-a-number: undefined".
  it.each([
    ["a-b", { "a-b": 1 }, /^Could not apply "a-b": .* \(a key with '-' must be quoted: "a-b"\)$/],
    [
      "user.first-name",
      { user: { "first-name": "Ann" } },
      /\(a key with '-' must be quoted: "first-name"\)$/,
    ],
    [
      "item-1",
      { "item-1": 1 },
      /^Invalid JMESPath expression .*\(a key with '-' must be quoted: "item-1"\)$/,
    ],
    ["[a-b, c-d, a-b]", {}, /\(keys with '-' must be quoted: "a-b", "c-d"\)$/],
  ])("hints that a key with '-' must be quoted when %s fails", async (expression, data, message) => {
    await expectSkillError(jsonQuery, { data, expression }, message);
  });

  // The library's own words for these were "not-a-number: undefined", "not-a-number" and
  // "not-a-number: divide by zero", naming neither the operator nor the operand.
  it.each([
    [
      "Europe/Nowhere",
      {},
      /^Could not apply "Europe\/Nowhere": '\/' needs numbers, and "Europe" is null \(a key the data does not have, or a null\) \('\/' divides in JMESPath: a path is written a\.b\)$/,
    ],
    ["a + b", { a: "x", b: 1 }, /: '\+' needs numbers, and "a" is a string, not a number$/],
    ["a * `2`", { a: { n: 1 } }, /: '\*' needs numbers, and "a" is an object, not a number$/],
    ["-a", { a: [1] }, /: '-' needs numbers, and "a" is an array, not a number$/],
    ["`2` - length(a)", { a: null }, /: Invalid type: length\(\)/],
    [
      "`1` + to_string(a)",
      { a: 1 },
      /: '\+' needs numbers, and the value after it is a string, not a number$/,
    ],
    ["a / b", { a: 1, b: 0 }, /: '\/' divides by zero$/],
    ["a // b", { a: 1, b: 0 }, /: '\/\/' divides by zero$/],
  ])("says which operand of %s is not a number", async (expression, data, message) => {
    await expectSkillError(jsonQuery, { data, expression }, message);
  });

  it("computes arithmetic on numbers as JMESPath does", async () => {
    const data = { a: 7, b: 2, items: [{ x: 1 }, { x: 2 }] };
    for (const [expression, result] of [
      ["a / b", 3.5],
      ["a // b", 3],
      ["a % b", 1],
      ["-a + b * `3`", -1],
      ["items[].x * `10`", [10, 20]],
    ] as const) {
      expect(await runSkill(jsonQuery, { data, expression })).toEqual({ result });
    }
  });

  // Audit 26 F4: in JMESPath "x" is the field x, so a[?n=="x"] compared with a missing field
  // and answered [] as if no record matched; other slips got the parser's words only.
  describe("a string in double quotes in a comparison", () => {
    const data = {
      a: [
        { n: "x", v: 2, "first-name": "x" },
        { n: "y", v: 1 },
      ],
    };

    it.each(['a[?n=="x"].v', 'a[?"x" != n].v', 'a[?n == "x" && v > `1`].v'])(
      "is refused in %s when the data has no such field, with the string written as JMESPath wants",
      async (expression) => {
        const error = await expectSkillError(jsonQuery, { data, expression }, /is a field name in JMESPath/);
        expect(error.message).toContain(
          'the data has no field "x", so the comparison would match nothing: write the string in single ' +
            "quotes, 'x', or as a JSON literal in backticks, `\"x\"`",
        );
      },
    );

    it("is left alone as the field comparison it is when the data has the field", async () => {
      expect(await runSkill(jsonQuery, { data, expression: 'a[?n == "first-name"].v' })).toEqual({
        result: [2],
      });
      expect(await runSkill(jsonQuery, { data, expression: "a[?n == 'x'].v" })).toEqual({ result: [2] });
      expect(await runSkill(jsonQuery, { data, expression: 'a[?n == `"x"`].v' })).toEqual({ result: [2] });
    });
  });

  // Left open in session 26: an unquoted name where a literal was meant, and JavaScript's
  // .length, answered [] and null as if nothing matched.
  describe("an empty answer a slip explains", () => {
    const data = {
      a: [
        { n: "x", v: 2, done: true },
        { n: "y", v: 1, done: false },
      ],
      s: "abc",
      o: { w: 1 },
    };

    it.each([
      [
        "a[?n==x].v",
        /^x in "a\[\?n==x\]\.v" is a field name in JMESPath, and the data has no field x, so the comparison matched nothing: write the string in single quotes, 'x'/,
      ],
      ["a[?z == n && v > `1`]", /^z in .* write the string in single quotes, 'z'/],
      ["a[?done == null]", /^null in .* write null as a literal in backticks: `null`$/],
    ])("%s is refused, naming the bare name and how to write the value", async (expression, message) => {
      await expectSkillError(jsonQuery, { data, expression }, message);
    });

    // Found by the skills audit (session 39): filtering by an ISO date answered [] without a word.
    describe("ordering by a string", () => {
      const orders = {
        orders: [
          { id: 1, date: "2024-03-01" },
          { id: 2, date: "2023-12-01" },
        ],
      };
      it.each([
        "orders[?date >= '2024-01-01'].id",
        "orders[?'2024-01-01' < date].id",
        'orders[?date > `"2024-01-01"`].id',
      ])("%s is refused, saying JMESPath orders numbers only", async (expression) => {
        await expectSkillError(
          jsonQuery,
          { data: orders, expression },
          /orders a string: in JMESPath <, <=, > and >= compare numbers only .* to_number\(replace\(date\[0:10\], '-', ''\)\) >= `20240101`$/,
        );
      });

      it("answers the suggested comparison, and leaves an ordering that found something alone", async () => {
        const digits = "orders[?to_number(replace(date[0:10], '-', '')) >= `20240101`].id";
        expect(await runSkill(jsonQuery, { data: orders, expression: digits })).toEqual({ result: [1] });
        expect(await runSkill(jsonQuery, { data: orders, expression: "orders[?id > `1`].id" })).toEqual({
          result: [2],
        });
        expect(
          await runSkill(jsonQuery, { data: orders, expression: "orders[?date == '2024-03-01'].id" }),
        ).toEqual({
          result: [1],
        });
      });
    });

    it.each([
      ["a.length", "a is an array", "length(a)"],
      ["s.length", "s is a string", "length(s)"],
      ["a[0].n.length", "a[0].n is a string", "length(a[0].n)"],
    ])("%s is refused, saying length() gives the length", async (expression, what, written) => {
      const error = await expectSkillError(
        jsonQuery,
        { data, expression },
        /JMESPath has no \.length member/,
      );
      expect(error.message).toContain(`${what}`);
      expect(error.message).toContain(`write ${written} for its length`);
    });

    it.each([
      ["a[?n=='x'].v", [2]],
      ["a[?n == n].v", [2, 1]],
      ["a[?n == x || v > `1`].v", [2]],
      ["a[?v > `5`]", []],
      ["o.length", null],
      ["missing.length", null],
      ["length(a)", 2],
    ])(
      "%s is answered as it is: a match found, or no comparison with a missing name",
      async (expression, result) => {
        expect(await runSkill(jsonQuery, { data, expression })).toEqual({ result });
      },
    );

    it.each([
      ["orders[?status == 'open']", { orders: [] }],
      ["orders[?status == 'open']", { orders: [{ id: 1 }] }],
      ["orders[?status == state]", { orders: [] }],
    ])("%s over records without the field (or none) answers [] as it is", async (expression, data) => {
      expect(await runSkill(jsonQuery, { data, expression })).toEqual({ result: [] });
    });

    it("leaves a field the data has alone", async () => {
      const withFields = { a: [{ n: "x", x: "y" }], length: 3, s: "abc" };
      expect(await runSkill(jsonQuery, { data: withFields, expression: "a[?n == x]" })).toEqual({
        result: [],
      });
      expect(await runSkill(jsonQuery, { data: withFields, expression: "s.length" })).toEqual({
        result: null,
      });
    });
  });

  it.each([
    ["a[?v>1].n", /invalid token \(Number\): "1" \(JMESPath writes a number as a literal in backticks: `1`/],
    ["$..n", /\(json\.query takes JMESPath, not JSONPath: write a\.b for \$\.a\.b, a\[\*\]\.n/],
    ["$.a[?(@.v>1)].n", /not JSONPath: .*a\[\?v > `1`\]\.n for \$\.a\[\?\(@\.v > 1\)\]\.n/],
    ["$['a']", /not JSONPath/],
    [
      "a[",
      /\(a JMESPath expression looks like a\.b, items\[0\], people\[\?age > `30`\]\.name or length\(items\)\)$/,
    ],
  ])("explains the syntax error in %s with what JMESPath expects", async (expression, message) => {
    await expectSkillError(jsonQuery, { data: { a: [{ n: "x", v: 2 }] }, expression }, message);
  });

  it("says in the expression's description how strings and numbers are written", () => {
    expect(jsonQuery.params.shape.expression.description).toMatch(/not JSONPath.*single quotes.*backticks/);
  });

  it("gives no quoting hint for names already quoted, strings, literals or variables", async () => {
    for (const expression of ['"a-b" - b', "'x-y' - b", '`"x-y"` - b', "let $a = `1` in $a-b"]) {
      const error = await expectSkillError(jsonQuery, { data: {}, expression }, /^Could not apply/);
      expect(error.message).not.toMatch(/quoted/);
    }
  });

  it("finds a key with '-' once it is quoted", async () => {
    const data = { user: { "first-name": "Ann" } };
    expect(await runSkill(jsonQuery, { data, expression: 'user."first-name"' })).toEqual({ result: "Ann" });
  });

  it.each([
    ["constructor", { a: 1 }],
    ["toString", { a: 1 }],
    ["valueOf", { a: 1 }],
    ["hasOwnProperty", { a: 1 }],
    ["x.constructor", { x: {} }],
    ["__proto__", { x: {} }],
    ["{b: a}.constructor", { a: 1 }],
    ["`{}`.toString", { a: 1 }],
    ["merge(@).constructor", { a: 1 }],
    ["let $v = a in constructor", { a: 1 }],
  ])(
    "gives null for %s, a key the data does not have, never an Object.prototype member",
    async (expression, data) => {
      expect(await runSkill(jsonQuery, { data, expression })).toEqual({ result: null });
    },
  );

  it("finds an own key named like an Object.prototype member", async () => {
    // JSON.parse makes "__proto__" an own property, as a request body would.
    const data = JSON.parse('{"constructor": 1, "__proto__": {"p": 2}}');
    expect(await runSkill(jsonQuery, { data, expression: "[constructor, __proto__.p]" })).toEqual({
      result: [1, 2],
    });
  });

  it.each([
    ['{"__proto__": a, b: a}', { a: 1 }, '{"__proto__":1,"b":1}'],
    [
      'merge(@, `{"c": 3}`)',
      JSON.parse('{"__proto__": {"p": 1}, "a": 2}'),
      '{"__proto__":{"p":1},"a":2,"c":3}',
    ],
    [
      "group_by(@, &k)",
      [{ k: "__proto__" }, { k: "constructor" }],
      '{"__proto__":[{"k":"__proto__"}],"constructor":[{"k":"constructor"}]}',
    ],
  ])("keeps a key named __proto__ in the object %s builds", async (expression, data, json) => {
    const { result } = await runSkill(jsonQuery, { data, expression });
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    expect(JSON.stringify(result)).toBe(json);
  });

  it("requires data", () => {
    expect(jsonQuery.params.safeParse({ expression: "a" }).success).toBe(false);
    expect(jsonQuery.params.safeParse({ data: null, expression: "a" }).success).toBe(true);
  });
});

describe("json.validate", () => {
  const userSchema = {
    type: "object",
    required: ["name", "email"],
    additionalProperties: false,
    properties: {
      name: { type: "string", minLength: 1 },
      email: { type: "string", format: "email" },
      role: { enum: ["admin", "user"] },
    },
  };

  it("accepts valid data", async () => {
    expect(
      await runSkill(jsonValidate, { schema: userSchema, data: { name: "Ann", email: "ann@example.com" } }),
    ).toEqual({
      valid: true,
      errors: [],
      error_count: 0,
      ignored_formats: [],
    });
  });

  it("lists every error with its path", async () => {
    const result = await runSkill(jsonValidate, {
      schema: userSchema,
      data: { name: "", email: "not-an-email", role: "root", extra: 1 },
    });
    expect(result.valid).toBe(false);
    expect(result.errors).toEqual(
      expect.arrayContaining([
        {
          path: "",
          message: 'must NOT have additional properties: "extra"',
          keyword: "additionalProperties",
        },
        { path: "/name", message: "must NOT have fewer than 1 characters", keyword: "minLength" },
        { path: "/email", message: 'must match format "email"', keyword: "format" },
        {
          path: "/role",
          message: 'must be equal to one of the allowed values: "admin", "user"',
          keyword: "enum",
        },
      ]),
    );
    expect(result.error_count).toBe(4);
  });

  it("reports a missing required property at the root", async () => {
    const result = await runSkill(jsonValidate, { schema: userSchema, data: { name: "Ann" } });
    expect(result.errors).toEqual([
      { path: "", message: "must have required property 'email'", keyword: "required" },
    ]);
  });

  it("never counts an inherited Object.prototype member as a present property", async () => {
    const required = ["toString", "constructor", "hasOwnProperty", "__proto__"];
    const result = await runSkill(jsonValidate, { schema: { type: "object", required }, data: {} });
    expect(result.valid).toBe(false);
    expect(result.errors).toEqual(
      required.map((name) => ({
        path: "",
        message: `must have required property '${name}'`,
        keyword: "required",
      })),
    );
    const typed = { type: "object", properties: { toString: { type: "string" } } };
    expect(await runSkill(jsonValidate, { schema: typed, data: {} })).toEqual({
      valid: true,
      errors: [],
      error_count: 0,
      ignored_formats: [],
    });
  });

  it.each(["https://json-schema.org/draft/2019-09/schema", "https://json-schema.org/draft/2020-12/schema"])(
    "never counts an inherited member as present under %s, nested or dependent",
    async ($schema) => {
      const schema = {
        $schema,
        type: "object",
        dependentRequired: { a: ["valueOf"] },
        properties: { inner: { type: "object", required: ["toString"] } },
      };
      const result = await runSkill(jsonValidate, { schema, data: { a: 1, inner: {} } });
      expect(result.errors).toEqual([
        { path: "/inner", message: "must have required property 'toString'", keyword: "required" },
        {
          path: "",
          message: "must have property valueOf when property a is present",
          keyword: "dependentRequired",
        },
      ]);
    },
  );

  it("still sees an own property named like an Object.prototype member", async () => {
    const schema = {
      type: "object",
      required: ["toString", "__proto__"],
      properties: { toString: { type: "string" } },
    };
    // JSON.parse makes "__proto__" an own property, as a request body would.
    const data = JSON.parse('{"toString":"x","__proto__":1}');
    expect((await runSkill(jsonValidate, { schema, data })).valid).toBe(true);
  });

  it("supports draft 2020-12 keywords", async () => {
    const schema = {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "array",
      prefixItems: [{ type: "string" }, { type: "number" }],
      items: false,
    };
    expect((await runSkill(jsonValidate, { schema, data: ["a", 1] })).valid).toBe(true);
    expect((await runSkill(jsonValidate, { schema, data: ["a", 1, true] })).valid).toBe(false);
  });

  it("says when data that fails the root type is a string holding JSON, as an http.request body is", async () => {
    const result = await runSkill(jsonValidate, { schema: { type: "object" }, data: '{"a": 1}' });
    expect(result.errors).toEqual([
      {
        path: "",
        message:
          "must be object, not a string: data is JSON text; pass the JSON value itself, not a string holding it",
        keyword: "type",
      },
    ]);
    const plain = await runSkill(jsonValidate, { schema: { type: "object" }, data: "hello" });
    expect(plain.errors).toEqual([{ path: "", message: "must be object", keyword: "type" }]);
  });

  it("fails an invalid schema with a SkillError", async () => {
    await expectSkillError(jsonValidate, { schema: { type: "strnig" }, data: 1 }, /^Invalid JSON Schema: /);
    await expectSkillError(
      jsonValidate,
      { schema: { properties: { a: { type: "strnig" } } }, data: 1 },
      /\/properties\/a\/type must be equal to one of the allowed values: "array", "boolean", "integer", "null", "number", "object", "string"/,
    );
    await expectSkillError(
      jsonValidate,
      { schema: { $ref: "https://example.com/schema.json" }, data: 1 },
      /^Invalid JSON Schema: .*can't resolve reference/,
    );
  });

  it.each([
    ["a $ref to the root", { $ref: "#" }],
    [
      "a $ref cycle through $defs",
      { $defs: { a: { $ref: "#/$defs/b" }, b: { $ref: "#/$defs/a" } }, $ref: "#/$defs/a" },
    ],
    ["a $dynamicRef with no $dynamicAnchor", { $dynamicRef: "#meta" }],
  ])(
    "fails %s, which would recurse endlessly, saying the references loop, not that the stack overflowed",
    async (_, schema) => {
      const error = await expectSkillError(
        jsonValidate,
        { schema, data: 1 },
        /^Invalid JSON Schema: its references \(\$ref, \$dynamicRef\) lead back to where they start without a keyword that checks anything/,
      );
      expect(error.message).not.toMatch(/call stack/);
    },
  );

  // Regression (audit 22 F17): Ajv ignores a format it does not know, so a typo answered
  // `valid: true` with nothing checked and nothing said.
  it("names the formats it does not know in ignored_formats, and still checks the ones it knows", async () => {
    const schema = {
      type: "object",
      properties: {
        a: { type: "string", format: "made-up-format" },
        b: { type: "string", format: "idn-email" },
        c: { type: "string", format: "made-up-format" },
        d: { type: "string", format: "email" },
      },
    };
    const result = await runSkill(jsonValidate, {
      schema,
      data: { a: "x", b: "y", c: "z", d: "not-an-email" },
    });
    expect(result.ignored_formats).toEqual(["made-up-format", "idn-email"]);
    expect(result.errors).toEqual([{ path: "/d", message: 'must match format "email"', keyword: "format" }]);
    const known = { type: "string", format: "date-time" };
    expect(
      (await runSkill(jsonValidate, { schema: known, data: "2024-05-01T10:00:00Z" })).ignored_formats,
    ).toEqual([]);
  });

  // Regression (audit 22 F17): a draft-06 schema failed with Ajv's "no schema with key or ref".
  it("validates draft-06 schemas, their meta-schema included", async () => {
    const $schema = "http://json-schema.org/draft-06/schema#";
    const schema = { $schema, type: "object", properties: { n: { type: "integer", exclusiveMinimum: 0 } } };
    expect((await runSkill(jsonValidate, { schema, data: { n: 1 } })).valid).toBe(true);
    expect((await runSkill(jsonValidate, { schema, data: { n: 0 } })).errors).toEqual([
      { path: "/n", message: "must be > 0", keyword: "exclusiveMinimum" },
    ]);
    await expectSkillError(
      jsonValidate,
      { schema: { $schema, type: "strnig" }, data: 1 },
      /^Invalid JSON Schema: \/type must be equal to one of the allowed values/,
    );
  });

  // Regression (audit 22 F17): Ajv's 2020-12 meta-schema reported an `items` array as
  // "data/items must be object,boolean" over and over, with no word of prefixItems.
  it("answers an items array under 2020-12 with one message naming prefixItems", async () => {
    const schema = {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      properties: { a: { items: [{ type: "string" }] }, b: { items: [{ type: "number" }], type: "array" } },
    };
    const error = await expectSkillError(jsonValidate, { schema, data: {} }, /prefixItems/);
    expect(error.message).toBe(
      'Invalid JSON Schema: "items" is an array at /properties/a/items, /properties/b/items, which 2020-12 does ' +
        'not allow: list the schemas of the first items in "prefixItems", and give "items" (not "additionalItems") ' +
        "one schema for the items after them",
    );
  });

  it("refuses draft-04 schemas with a clear message", async () => {
    await expectSkillError(
      jsonValidate,
      { schema: { $schema: "http://json-schema.org/draft-04/schema#", type: "string" }, data: "x" },
      /draft-03\/04 is not supported/,
    );
  });

  // Regression (left open in session 23): an unknown "$schema" answered Ajv's own
  // 'no schema with key or ref "…"', which names no value that would work.
  it.each([
    "http://example.com/my-meta-schema",
    "https://json-schema.org/draft-07/schema#",
    "http://json-schema.org/draft/2020-12/schema",
    "https://json-schema.org/draft/2019-09/schema-x",
    "urn:x",
  ])("refuses the unknown $schema %s naming the supported ones", async ($schema) => {
    const error = await expectSkillError(
      jsonValidate,
      { schema: { $schema, type: "string" }, data: "x" },
      /^Unsupported "\$schema" ".*": use https:\/\/json-schema\.org\/draft\/2020-12\/schema \(the default\), .*2019-09.*draft-07.*draft-06\/schema#, or leave "\$schema" out to validate as 2020-12/,
    );
    expect(error.message).not.toMatch(/no schema with key or ref/);
  });

  // Left open in session 24: the version-less "latest" URI validated as draft-07, Ajv's
  // alias for its own default draft, so a schema written for 2020-12 had its prefixItems
  // and unevaluatedProperties ignored and its data answered valid.
  it.each([
    "http://json-schema.org/schema#",
    "http://json-schema.org/schema",
    "https://json-schema.org/schema#",
    "https://json-schema.org/schema",
  ])(
    "refuses the version-less $schema %s, asking for the draft the schema was written for",
    async ($schema) => {
      const schema = { $schema, type: "object", properties: { a: true }, unevaluatedProperties: false };
      const error = await expectSkillError(
        jsonValidate,
        { schema, data: { a: 1, b: 2 } },
        /^The "\$schema" ".*" names no draft: it meant the latest one when the schema was written, and JSON Schema deprecated it after draft-04; name the draft the schema was written for: https:\/\/json-schema\.org\/draft\/2020-12\/schema \(the default\), .*2019-09.*draft-07.*draft-06\/schema#, or leave "\$schema" out to validate as 2020-12$/,
      );
      expect(error.message).toContain(JSON.stringify($schema));
    },
  );

  it.each([
    "http://json-schema.org/draft-07/schema#",
    "http://json-schema.org/draft-07/schema",
    "http://json-schema.org/draft-06/schema",
    "https://json-schema.org/draft/2019-09/schema#",
    "https://json-schema.org/draft/2020-12/schema#",
  ])("still takes the $schema %s, with or without its #", async ($schema) => {
    const result = await runSkill(jsonValidate, { schema: { $schema, type: "string" }, data: 1 });
    expect(result.errors).toEqual([{ path: "", message: "must be string", keyword: "type" }]);
  });

  it("lists in the schema param the $schema values it takes", () => {
    expect(jsonValidate.params.shape.schema.description).toMatch(
      /"\$schema" selects the draft: https:\/\/json-schema\.org\/draft\/2020-12\/schema \(the default\), .*2019-09.*draft-07.*draft-06/,
    );
  });
});

// Audit 26 F3: without "$schema" the schema was read as draft-07, and Ajv ignored keywords it
// did not know, so newer keywords and typos checked nothing and invalid data was "valid".
describe("json.validate, newer and unknown keywords", () => {
  it.each([
    [[1, "a"], { type: "array", prefixItems: [{ type: "number" }, { type: "number" }] }, "/1"],
    [{ a: 1 }, { type: "object", dependentRequired: { a: ["b"] } }, ""],
    [{ a: 1, z: 2 }, { type: "object", properties: { a: {} }, unevaluatedProperties: false }, ""],
    [[1, 2], { type: "array", contains: { type: "number" }, maxContains: 1 }, ""],
  ])("reads a schema that names no draft as 2020-12: %j fails %j", async (data, schema, path) => {
    const result = await runSkill(jsonValidate, { data, schema });
    expect(result.valid).toBe(false);
    expect((result.errors as { path: string }[])[0]?.path).toBe(path);
  });

  it("refuses a keyword the draft does not define, naming it and the keyword it may mean", async () => {
    const schema = { type: "object", properties: { a: { typ: "string" }, b: { minimun: 1 } } };
    const error = await expectSkillError(
      jsonValidate,
      { data: { a: 1 }, schema },
      /^Unknown JSON Schema keywords/,
    );
    expect(error.message).toContain('"typ" (did you mean "type"?)');
    expect(error.message).toContain('"minimun" (did you mean "minimum"?)');
    expect(error.message).toContain("the draft (2020-12) does not define them, so they would check nothing");
  });

  it("refuses a 2020-12 keyword in a schema that declares draft-07, saying which draft has it", async () => {
    const $schema = "http://json-schema.org/draft-07/schema#";
    const schema = { $schema, type: "array", prefixItems: [{ type: "string" }] };
    const error = await expectSkillError(jsonValidate, { data: [1], schema }, /"prefixItems"/);
    expect(error.message).toContain('prefixItems is 2019-09/2020-12: drop "$schema"');
  });

  it("still validates schemas that declare an older draft, with their own keywords", async () => {
    const $schema = "http://json-schema.org/draft-07/schema#";
    const tuple = { $schema, type: "array", items: [{ type: "string" }], additionalItems: false };
    expect((await runSkill(jsonValidate, { data: ["a"], schema: tuple })).valid).toBe(true);
    expect((await runSkill(jsonValidate, { data: ["a", 1], schema: tuple })).valid).toBe(false);
    const dependencies = { $schema, dependencies: { a: ["b"] }, definitions: { n: { type: "number" } } };
    expect((await runSkill(jsonValidate, { data: { a: 1 }, schema: dependencies })).valid).toBe(false);
  });

  it("asks for the draft of a draft-07 tuple written without $schema", async () => {
    await expectSkillError(
      jsonValidate,
      { data: [1], schema: { type: "array", items: [{ type: "string" }] } },
      /"prefixItems".*or declare the draft the schema was written for, e\.g\. "\$schema": "http:\/\/json-schema\.org\/draft-07\/schema#"/,
    );
    await expectSkillError(
      jsonValidate,
      { data: [1], schema: { type: "array", prefixItems: [{}], additionalItems: false } },
      /"additionalItems".*additionalItems is draft-07's/,
    );
  });

  // Regression (skills audit): Ajv knows OpenAPI 3.0's `nullable` by default, so
  // {"type":"string","nullable":true} took null, where a 2020-12 validator says null is not a string.
  it.each([
    [{ type: "string", nullable: true }, null],
    [{ $schema: "http://json-schema.org/draft-07/schema#", type: "string", nullable: true }, null],
    [{ type: "object", properties: { a: { type: "integer", nullable: true } } }, { a: null }],
    [{ type: "null", nullable: false }, null],
    [{ nullable: true, minimum: 1 }, null],
  ])("refuses OpenAPI's nullable in %j as a keyword the draft does not define", async (schema, data) => {
    const error = await expectSkillError(
      jsonValidate,
      { data, schema },
      /^Unknown JSON Schema keyword "nullable": the draft \(.*\) does not define it, so it would check nothing/,
    );
    expect(error.message).toContain(
      'in JSON Schema list "null" among the types, as "type": ["string", "null"]',
    );
  });

  it('still takes null where "type" lists "null", the JSON Schema way of writing nullable', async () => {
    const schema = { type: ["string", "null"] };
    expect((await runSkill(jsonValidate, { data: null, schema })).valid).toBe(true);
    expect((await runSkill(jsonValidate, { data: 1, schema })).valid).toBe(false);
  });

  it("keeps the annotations people add and the keywords every draft knows", async () => {
    const schema = {
      $id: "https://example.com/s",
      $comment: "c",
      title: "T",
      description: "d",
      "x-internal": true,
      example: { a: 1 },
      type: "object",
      properties: { a: { $anchor: "a", type: "number", default: 0, examples: [1], deprecated: true } },
    };
    expect((await runSkill(jsonValidate, { data: { a: 1 }, schema })).valid).toBe(true);
  });

  it("says in the description that 2020-12 is the default and unknown keywords are refused", () => {
    expect(jsonValidate.description).toMatch(/2020-12 unless its "\$schema" names/);
    expect(jsonValidate.description).toMatch(/refused, not ignored/);
  });
});

describe("json.validate, multipleOf with a decimal", () => {
  // Regression: Ajv divided in binary floating point, so 19.99 was no multiple of 0.01.
  it("accepts the multiples a decimal reading gives, and refuses the others", async () => {
    for (const [multipleOf, data] of [
      [0.01, 19.99],
      [0.01, 1.15],
      [0.1, 0.3],
    ]) {
      expect(
        (await runSkill(jsonValidate, { schema: { multipleOf }, data })).valid,
        `${data} / ${multipleOf}`,
      ).toBe(true);
    }
    expect((await runSkill(jsonValidate, { schema: { multipleOf: 0.01 }, data: 19.995 })).valid).toBe(false);
  });
});
