import { describe, expect, it } from "vitest";
import { unitsConvert } from "../../skills/units-convert.js";
import { expectSkillError, runSkill } from "./run-skill.js";

describe("units.convert", () => {
  // The everyday conversions, then every unit the skill's documentation names as an
  // example: the from/to param descriptions, the unit-name error message and the description.
  const everyday: [number, string, string, number][] = [
    [5, "km", "mi", 3.10685596119],
    [100, "degC", "degF", 212],
    [100, "degF", "degC", 37.7777777778],
    [70, "kg", "lb", 154.323583529],
    [60, "mi/h", "km/h", 96.56064],
    [1, "GiB", "MB", 1073.741824],
    [0, "degC", "K", 273.15],
  ];
  const documentedUnits: [number, string, string, number][] = [
    [1, "km", "m", 1000],
    [1, "lb", "kg", 0.45359237],
    [1, "degF", "degC", -17.2222222222],
    [60, "mph", "km/h", 96.56064],
    [100, "km/h", "mph", 62.1371192237],
    [1, "gallon", "l", 3.785411784],
    [1, "GiB", "MiB", 1024],
    [1, "m^2", "ft^2", 10.7639104167],
    [1, "mi", "km", 1.609344],
    [1, "kg", "lb", 2.20462262185],
    [1, "degC", "K", 274.15],
    [1, "m/s", "km/h", 3.6],
    [1, "K", "degC", -272.15],
    [1, "B", "b", 8],
    [1, "kB", "B", 1000],
    [1, "MiB", "kB", 1048.576],
    [30, "mpg", "L/100km", 7.84048611111],
  ];

  // Found by the skills audit (session 39): mathjs's tablespoon and teaspoon were metric
  // beside its US cup; acre, torr and mmHg were rounded to six digits, the electronvolt was
  // CODATA 2010's; "ct" was a centitonne; and "GBps" was read as "Gbps", 8 times off.
  const exactDefinitions: [number, string, string, number][] = [
    [1, "cup", "tbsp", 16],
    [1, "floz", "tbsp", 2],
    [1, "tbsp", "tsp", 3],
    [1, "tablespoon", "ml", 14.7867647812],
    [1, "acre", "ft^2", 43560],
    [1, "hectare", "acre", 2.47105381467],
    [1, "atm", "torr", 760],
    [1, "mmHg", "Pa", 133.322387415],
    [1, "eV", "J", 1.602176634e-19],
    [1, "MeV", "J", 1.602176634e-13],
    [1, "ct", "g", 0.2],
    [5, "carats", "g", 1],
    [1, "MBps", "MB/s", 1],
    [1, "GB/s", "GBps", 1],
    [8, "Mbps", "MBps", 1],
    [1, "KBps", "kB/s", 1],
  ];

  it.each([...everyday, ...documentedUnits, ...exactDefinitions])(
    "converts %d %s to %s",
    async (value, from, to, expected) => {
      expect(await runSkill(unitsConvert, { value, from, to })).toEqual({
        value: expected,
        unit: to,
        text: `${expected} ${to}`,
      });
    },
  );

  // The description names mass "(kg, pounds)", and agents pass on what users write: pound,
  // metres and horsepower were unknown units.
  it.each([
    [150, "pounds", "kg", 68.0388555],
    [1, "kg", "pound", 2.20462262185],
    [1, "metre", "ft", 3.28083989501],
    [5, "kilometres", "mi", 3.10685596119],
    [30, "centimetres", "inch", 11.811023622],
    [1, "horsepower", "kW", 0.745699871539],
    [12, "stones", "kg", 76.20351816],
  ])("converts %d %s to %s, as users spell them", async (value, from, to, expected) => {
    expect(await runSkill(unitsConvert, { value, from, to })).toEqual({
      value: expected,
      unit: to,
      text: `${expected} ${to}`,
    });
  });

  it("tests every unit the from and to params quote as an example", () => {
    const { from, to } = unitsConvert.params.shape;
    const quoted = [from.description, to.description].flatMap((text = "") =>
      [...text.matchAll(/"([^"]+)"/g)].map(([, unit = ""]) => unit),
    );
    const tested = new Set(documentedUnits.flatMap(([, from, to]) => [from, to]));
    expect(quoted.length).toBeGreaterThan(0);
    expect(quoted.filter((unit) => !tested.has(unit))).toEqual([]);
  });

  it("reads mph as one unit inside a compound unit", async () => {
    // Not h/mi/h, which is 1/mi and would not convert to h^2/mi.
    expect(await runSkill(unitsConvert, { value: 1, from: "h/mph", to: "h^2/mi" })).toMatchObject({
      value: 1,
    });
  });

  it("refuses units of different dimensions, saying what each measures", async () => {
    await expectSkillError(
      unitsConvert,
      { value: 1, from: "m", to: "kg" },
      /^Cannot convert m to kg: m measures length, kg measures mass$/,
    );
    await expectSkillError(
      unitsConvert,
      { value: 1, from: "km/h", to: "m" },
      /^Cannot convert km\/h to m: km\/h measures length\/time, m measures length$/,
    );
  });

  it("says that C and F are not temperatures, and which units are", async () => {
    await expectSkillError(
      unitsConvert,
      { value: 100, from: "C", to: "F" },
      /C measures electric charge, F measures electric capacitance \(C and F are coulomb and farad: for temperatures, use degC and degF\)/,
    );
  });

  it("refuses a temperature below absolute zero, in any scale", async () => {
    for (const [value, from] of [
      [-500, "K"],
      [-273.16, "degC"],
      [-460, "degF"],
    ] as const) {
      await expectSkillError(unitsConvert, { value, from, to: "K" }, /is below absolute zero/);
    }
    expect(await runSkill(unitsConvert, { value: -273.15, from: "degC", to: "K" })).toMatchObject({
      value: 0,
    });
  });

  // Everyday units mathjs does not know by these names (the description lists them).
  it.each([
    [1, "kcal", "kJ", 4.184],
    [250, "Cal", "kcal", 250],
    [1000, "cal", "J", 4184],
    [10, "knots", "km/h", 18.52],
    [1, "kn", "m/s", 0.514444444444],
    [1, "nmi", "km", 1.852],
    [3, "tsp", "tbsp", 1],
    [1, "tbsp", "mL", 14.7867647812], // US customary, as the cup and fl oz are
    [2, "fl oz", "mL", 59.147059125],
    [1, "ha", "m2", 10000],
    [10, "ft2", "m^2", 0.9290304],
    [1, "m3", "L", 1000],
    [1, "KB", "B", 1000],
    [3000, "rpm", "Hz", 50],
    [30, "mpg", "km/L", 12.7543112229],
    [1, "au", "km", 149597870.7],
    [1, "ly", "km", 9460730472580], // 12 significant digits
  ])("converts %d %s to %s (everyday names)", async (value, from, to, expected) => {
    expect(await runSkill(unitsConvert, { value, from, to })).toMatchObject({ value: expected });
  });

  // Audit 23, #15: "L/100km" failed with a parser message, and fuel use is the inverse of mpg.
  it.each([
    [7.84048611111, "L/100km", "mpg", 30],
    [10, "km/L", "L/100 km", 10],
    [5, "L/100km", "L/km", 0.05],
    [4, "mi/kWh", "kWh/100km", 15.5342798059],
  ])(
    "converts %d %s to %s (fuel and energy use, inverses per distance)",
    async (value, from, to, expected) => {
      expect(await runSkill(unitsConvert, { value, from, to })).toMatchObject({ value: expected, unit: to });
    },
  );

  it("converts no other inverse pair, and no fuel economy of zero", async () => {
    await expectSkillError(unitsConvert, { value: 2, from: "s", to: "Hz" }, /Cannot convert s to Hz/);
    await expectSkillError(unitsConvert, { value: 0, from: "mpg", to: "L/100km" }, /gives no finite number/);
  });

  it.each([
    ["USD", "EUR", "USD"],
    ["kg", "euros", "euros"],
    ["BTC", "usd", "BTC"],
  ])("refuses %s to %s saying %s is a currency, which it does not convert", async (from, to, currency) => {
    const error = await expectSkillError(
      unitsConvert,
      { value: 1, from, to },
      new RegExp(
        `: ${currency} is a currency, and this skill converts units only: money needs a current exchange rate`,
      ),
    );
    expect(error.message).not.toMatch(/did you mean/);
  });

  it("names an unknown unit", async () => {
    await expectSkillError(unitsConvert, { value: 1, from: "furlongz", to: "m" }, /Unknown unit "furlongz"/);
  });

  it("accepts only unit syntax, never a full expression", () => {
    expect(unitsConvert.params.safeParse({ value: 1, from: 'evaluate("1")', to: "m" }).success).toBe(false);
  });
});

describe("units.convert, a number inside a unit", () => {
  // Regression: "2 m" as from parsed as a quantity whose 2 the conversion dropped (10 × "2 m" gave 10 m).
  it("is taken as a reciprocal's 1 (1/min), which changes nothing", async () => {
    expect(await runSkill(unitsConvert, { value: 60, from: "1/min", to: "Hz" })).toMatchObject({ value: 1 });
    expect(await runSkill(unitsConvert, { value: 120, from: "1/min", to: "min^-1" })).toMatchObject({
      value: 120,
    });
  });

  it("is refused on either side, pointing at value", async () => {
    for (const [from, to] of [
      ["2 m", "m"],
      ["m", "2 cm"],
    ]) {
      await expectSkillError(unitsConvert, { value: 10, from, to }, /holds a number: give the unit alone/);
    }
  });
});

// Audit 26 F13: unit names were case-sensitive without a hint (KM, Kg, Celsius), and data
// rates (Mbps, Mbit/s, kmh) were unknown.
describe("units.convert, unit names in another case and data rates", () => {
  it.each([
    [5, "KM", "mi", 3.10685596119, "mi"],
    [5, "Kg", "lb", 11.0231131092, "lb"],
    [1, "Celsius", "Fahrenheit", 33.8, "fahrenheit"],
    [100, "KPH", "MPH", 62.1371192237, "mph"],
    [1, "L/100KM", "km/L", 100, "km/L"],
  ])("reads %s %s in the one unit its case may mean, to %s", async (value, from, to, converted, unit) => {
    expect(await runSkill(unitsConvert, { value, from, to })).toMatchObject({ value: converted, unit });
  });

  it.each([
    ["MM", /MM may be Mm or mm: give the one you mean/],
    ["mb", /mb may be Mb or MB: give the one you mean/],
  ])("asks which unit %s means when cases tell units apart", async (from, message) => {
    await expectSkillError(unitsConvert, { value: 1, from, to: "m" }, message);
  });

  it("keeps a name mathjs reads as given, whatever its case", async () => {
    expect((await runSkill(unitsConvert, { value: 1, from: "Mm", to: "km" })).value).toBe(1000);
    expect((await runSkill(unitsConvert, { value: 1, from: "mm", to: "m" })).value).toBe(0.001);
    expect((await runSkill(unitsConvert, { value: 1, from: "MB", to: "Mb" })).value).toBe(8);
  });

  it("suggests the unit a misspelt name may mean", async () => {
    await expectSkillError(
      unitsConvert,
      { value: 1, from: "Celcius", to: "K" },
      /\(did you mean celsius\?\)$/,
    );
  });

  it.each([
    [1, "Mbps", "MB/s", 0.125],
    [1, "Gbps", "Mbps", 1000],
    [8, "kbps", "B/s", 1000],
    [100, "bps", "bit/s", 100],
    [1, "Gbit", "MB", 125],
    [1, "Mbit/s", "Mbps", 1],
    [36, "kmh", "m/s", 10],
  ])("converts the data rate or speed %s %s to %s", async (value, from, to, converted) => {
    expect((await runSkill(unitsConvert, { value, from, to })).value).toBe(converted);
  });

  it("names data rates and case-sensitivity in its description", () => {
    expect(unitsConvert.description).toMatch(/data rate \(Mbps, MBps = MB\/s\)/);
    expect(unitsConvert.description).toMatch(/case-sensitive where the case matters \(mm and Mm/);
  });
});
