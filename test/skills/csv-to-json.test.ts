import { describe, expect, it } from "vitest";
import { csvToJson } from "../../skills/csv-to-json.js";
import { expectSkillError, runSkill } from "./run-skill.js";

describe("csv.to_json", () => {
  // Audit 23, #10: the note only warned about text outside ASCII, but a CSV of quoted fields
  // under 1,000,000 characters already makes a request over the default 1 MiB body limit.
  it("says what a character of the CSV costs in the JSON request the body limit counts", () => {
    const csv = `id,"name","note"\n${'1,"Ann","a ""quoted"" note"\n'.repeat(32_000)}`;
    const request = JSON.stringify({ skill_id: "csv.to_json", params: { csv } });
    expect(csv.length).toBeLessThan(1_000_000);
    expect(Buffer.byteLength(request)).toBeGreaterThan(1024 * 1024);

    // The costs the note states are JSON's escapes.
    const cost = (text: string) => Buffer.byteLength(JSON.stringify(text)) - 2;
    expect([cost('"'), cost("\\"), cost("\t"), cost("\n"), cost("\u0001"), cost("é"), cost("😀")]).toEqual([
      2, 2, 2, 2, 6, 2, 4,
    ]);
    expect(csvToJson.params.shape.csv.description).toMatch(
      /a quote, backslash, tab or line break takes 2 bytes \(escaped\), another control character 6, and a character outside ASCII 2 to 4/,
    );
  });

  it("parses rows keyed by the header", async () => {
    expect(await runSkill(csvToJson, { csv: "name,age\nAnn,34\nBob,25\n" })).toEqual({
      rows: [
        { name: "Ann", age: "34" },
        { name: "Bob", age: "25" },
      ],
      columns: ["name", "age"],
      row_count: 2,
      total_rows: 2,
      truncated: false,
      delimiter: ",",
    });
  });

  it("casts numbers, booleans and empty cells when asked, keeping leading-zero codes as text", async () => {
    const result = await runSkill(csvToJson, {
      csv: "zip,n,ok,note\n02134,1.5,true,\n10001,-2,false,x",
      cast: true,
    });
    // The zip column was expected half numbers ("02134", then 10001): a column of ZIP codes
    // is one of identifiers, and "02134" keeps all of it text (the audit's finding 6).
    expect(result.rows).toEqual([
      { zip: "02134", n: 1.5, ok: true, note: null },
      { zip: "10001", n: -2, ok: false, note: "x" },
    ]);
  });

  it("casts numbers written with an exponent, however large, and keeps identifiers and infinite ones as text", async () => {
    const { rows } = await runSkill(csvToJson, {
      csv: "n\n6.02e23\n1e308\n-1.5E-7\n1e309\n12345678901234567890\n9007199254740991\n02134",
      cast: true,
    });
    // This one column was expected half numbers, half text: a column is now cast as a whole,
    // and its identifiers (and 1e309, no finite number) keep every cell of it text. The test
    // below gives each kind of value a column of its own, with the old expectation for each.
    expect(rows).toEqual([
      { n: "6.02e23" },
      { n: "1e308" },
      { n: "-1.5E-7" },
      { n: "1e309" },
      { n: "12345678901234567890" },
      { n: "9007199254740991" },
      { n: "02134" },
    ]);
  });

  it("casts a column of numbers written with an exponent, however large, and keeps a column with an identifier or an infinite one text", async () => {
    const { rows } = await runSkill(csvToJson, {
      csv: "exp,inf,big,safe,zero\n6.02e23,1e309,12345678901234567890,9007199254740991,02134\n1e308,1,1,1,1\n-1.5E-7,,,,",
      cast: true,
    });
    expect(rows).toEqual([
      { exp: 6.02e23, inf: "1e309", big: "12345678901234567890", safe: 9007199254740991, zero: "02134" },
      { exp: 1e308, inf: "1", big: "1", safe: 1, zero: "1" },
      { exp: -1.5e-7, inf: null, big: null, safe: null, zero: null },
    ]);
  });

  // Regression (skills audit, finding 6): cast one cell at a time, a phone number lost its +
  // (14155550123), the code "1E5" became 100000 and a ZIP column was half numbers.
  it("keeps a column of phone numbers, codes or ZIP codes text, each cell as written", async () => {
    const { rows } = await runSkill(csvToJson, {
      csv: "name,phone,zip,code,n\nAnn,+14155550123,02134,1E5,1\nBob,+33142685300,94107,007,\nCy,,10001,,-2.5",
      cast: true,
    });
    expect(rows).toEqual([
      { name: "Ann", phone: "+14155550123", zip: "02134", code: "1E5", n: 1 },
      { name: "Bob", phone: "+33142685300", zip: "94107", code: "007", n: null },
      { name: "Cy", phone: null, zip: "10001", code: null, n: -2.5 },
    ]);
  });

  it("casts a column only when all its cells are of one type, whatever max_rows returns", async () => {
    const csv = "a,b,c,d\n1,true,1,x\n2,FALSE,true,\n3,no,2,y";
    expect((await runSkill(csvToJson, { csv, cast: true })).rows).toEqual([
      { a: 1, b: "true", c: "1", d: "x" },
      { a: 2, b: "FALSE", c: "true", d: null },
      { a: 3, b: "no", c: "2", d: "y" },
    ]);
    expect((await runSkill(csvToJson, { csv, cast: true, max_rows: 1 })).rows).toEqual([
      { a: 1, b: "true", c: "1", d: "x" },
    ]);
    expect((await runSkill(csvToJson, { csv: "1,true\n+2,false", header: false, cast: true })).rows).toEqual([
      ["1", true],
      ["+2", false],
    ]);
  });

  // Regression (audit 22 F17): spreadsheets export booleans as TRUE/FALSE (pandas as True/False),
  // and cast left them as strings.
  it("casts TRUE/FALSE and True/False, as spreadsheets and pandas export them, into booleans", async () => {
    const result = await runSkill(csvToJson, { csv: "a,b,c,d\nTRUE,FALSE,True,False", cast: true });
    expect(result.rows).toEqual([{ a: true, b: false, c: true, d: false }]);
  });

  it("handles quoted fields with delimiters, quotes and newlines", async () => {
    const result = await runSkill(csvToJson, { csv: 'a,b\n"x, y","say ""hi""\nthere"' });
    expect(result.rows).toEqual([{ a: "x, y", b: 'say "hi"\nthere' }]);
  });

  it.each([
    ["city;population\nLyon;522250", ";"],
    ["a\tb\n1\t2", "\t"],
    ["a|b\n1|2", "|"],
  ])("detects the delimiter of %j", async (csv, delimiter) => {
    const result = await runSkill(csvToJson, { csv });
    expect(result.delimiter).toBe(delimiter);
    expect(result.row_count).toBe(1);
  });

  // Regression (audit 22 F4): separators inside quoted header cells were counted, so a
  // semicolon export with "Last, First" in its header was parsed with commas and failed.
  it.each([
    ['"Last, First";Age\n"Doe, John";34', ";", [{ "Last, First": "Doe, John", Age: "34" }]],
    ['id;"notes, long"\n1;x', ";", [{ id: "1", "notes, long": "x" }]],
    ['"a;b;c",d\n1,2', ",", [{ "a;b;c": "1", d: "2" }]],
    ['"multi\nline, quoted";"say ""x, y"""\n1;2', ";", [{ "multi\nline, quoted": "1", 'say "x, y"': "2" }]],
  ])("detects the delimiter of %j outside quoted header cells", async (csv, delimiter, rows) => {
    const result = await runSkill(csvToJson, { csv });
    expect(result.delimiter).toBe(delimiter);
    expect(result.rows).toEqual(rows);
  });

  it("names the detected delimiter and the delimiter param when parsing fails in auto mode", async () => {
    await expectSkillError(
      csvToJson,
      { csv: "a;b\n1;2;3" },
      /^Invalid CSV: .*\(set relax_column_count .*; detected delimiter ";": set delimiter if the data uses another one\)$/,
    );
    const explicit = await expectSkillError(
      csvToJson,
      { csv: "a;b\n1;2;3", delimiter: ";" },
      /^Invalid CSV: /,
    );
    expect(explicit.message).not.toMatch(/detected delimiter/);
  });

  it("returns arrays and generated column names without a header", async () => {
    expect(await runSkill(csvToJson, { csv: "1,2,3\n4,5,6", header: false })).toMatchObject({
      rows: [
        ["1", "2", "3"],
        ["4", "5", "6"],
      ],
      columns: ["column_1", "column_2", "column_3"],
      row_count: 2,
    });
  });

  it("renames repeated and empty header names", async () => {
    const result = await runSkill(csvToJson, { csv: "name,name,\na,b,c" });
    expect(result.columns).toEqual(["name", "name_2", "column_3"]);
    expect(result.rows).toEqual([{ name: "a", name_2: "b", column_3: "c" }]);
  });

  it("keeps every column when a header repeats a generated name", async () => {
    const result = await runSkill(csvToJson, { csv: "a,a,a_2\n1,2,3" });
    expect(result.columns).toEqual(["a", "a_3", "a_2"]);
    expect(result.rows).toEqual([{ a: "1", a_3: "2", a_2: "3" }]);
  });

  it("keeps every column when an empty header cell's generated name is also a header", async () => {
    const result = await runSkill(csvToJson, { csv: "a,a,,a_2,column_3\n1,2,3,4,5" });
    expect(result.columns).toEqual(["a", "a_3", "column_3_2", "a_2", "column_3"]);
    expect(result.rows).toEqual([{ a: "1", a_3: "2", column_3_2: "3", a_2: "4", column_3: "5" }]);
  });

  it("keeps a column named like an Object.prototype member in every row, __proto__ included", async () => {
    const result = await runSkill(csvToJson, { csv: "id,__proto__,toString\n1,x,y\n" });
    expect(result.columns).toEqual(["id", "__proto__", "toString"]);
    expect(JSON.stringify(result.rows)).toBe('[{"id":"1","__proto__":"x","toString":"y"}]');
  });

  it("caps the rows at max_rows and says so", async () => {
    const result = await runSkill(csvToJson, { csv: "n\n1\n2\n3", max_rows: 2 });
    expect(result).toMatchObject({ row_count: 2, total_rows: 3, truncated: true });
  });

  it("fails a row of the wrong length with the line and a hint", async () => {
    await expectSkillError(
      csvToJson,
      { csv: "a,b\n1,2\n3" },
      /^Invalid CSV: Invalid Record Length: expect 2, got 1 on line 3 \(set relax_column_count/,
    );
  });

  it("accepts ragged rows with relax_column_count", async () => {
    const result = await runSkill(csvToJson, { csv: "a,b\n1,2\n3", relax_column_count: true });
    expect(result.rows).toEqual([
      { a: "1", b: "2" },
      { a: "3", b: null },
    ]);
  });

  // Regression: without a header a short row came back short ([3]), where the header case
  // and the description give its missing cells as null.
  it("pads short rows with null without a header too, to the widest row", async () => {
    const result = await runSkill(csvToJson, {
      csv: "1,2\n3\n4,5,6",
      header: false,
      relax_column_count: true,
    });
    expect(result.columns).toEqual(["column_1", "column_2", "column_3"]);
    expect(result.rows).toEqual([
      ["1", "2", null],
      ["3", null, null],
      ["4", "5", "6"],
    ]);
  });

  // Regression: with a header, the cells of a row beyond the header's length were dropped.
  it("keeps the extra cells of a row longer than the header, under positional names", async () => {
    const result = await runSkill(csvToJson, {
      csv: "a,b\n1,2\n3,4,5,6",
      relax_column_count: true,
    });
    expect(result.columns).toEqual(["a", "b", "column_3", "column_4"]);
    expect(result.rows).toEqual([
      { a: "1", b: "2", column_3: null, column_4: null },
      { a: "3", b: "4", column_3: "5", column_4: "6" },
    ]);
  });

  it("names an extra cell after its position even when the header already uses that name", async () => {
    const result = await runSkill(csvToJson, { csv: "column_3,b\n1,2,3", relax_column_count: true });
    expect(result.columns).toEqual(["column_3", "b", "column_3_2"]);
    expect(result.rows).toEqual([{ column_3: "1", b: "2", column_3_2: "3" }]);
  });

  it("fails an unclosed quote with the line", async () => {
    await expectSkillError(csvToJson, { csv: 'a,b\n"1,2\n' }, /^Invalid CSV: Quote Not Closed: .*line 2/);
  });

  it("parses half a million rows, as many as its 1,000,000 characters hold, without overflowing the stack (the column width was Math.max of one argument per row)", async () => {
    const csv = `n\n${"1\n".repeat(499_999)}`;
    const result = await runSkill(csvToJson, { csv, max_rows: 1 });
    expect(result).toMatchObject({ row_count: 1, total_rows: 499_999, truncated: true });
  });
});

describe("csv.to_json, line endings", () => {
  // Regression: csv-parse took the first line ending for the whole file, so CRLF rows after an LF header kept "\r".
  it("takes LF, CRLF and CR in any mix", async () => {
    const rows = [
      { name: "Ann", city: "Paris" },
      { name: "Bob", city: "Lyon" },
      { name: "Cy", city: "Nice" },
    ];
    expect(
      (await runSkill(csvToJson, { csv: "name,city\nAnn,Paris\r\nBob,Lyon\rCy,Nice\r\n" })).rows,
    ).toEqual(rows);
    expect((await runSkill(csvToJson, { csv: 'name,city\r\nAnn,Paris\nBob,"Lyon"\nCy,Nice' })).rows).toEqual(
      rows,
    );
    // A quoted line break is still part of its field.
    expect((await runSkill(csvToJson, { csv: 'name,city\nAnn,"Paris\r\nFrance"\r\n' })).rows).toEqual([
      { name: "Ann", city: "Paris\r\nFrance" },
    ]);
  });
});
