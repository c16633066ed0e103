import type { MathJsInstance, Unit } from "mathjs";
import { z } from "zod";
import { defineSkill, SkillError } from "../src/core/skills/skill.js";
import { errorMessage } from "./lib/errors.js";
import { loadMath } from "./lib/math.js";
import type { TextGuard } from "./lib/text-guards.js";
import { trimmedText } from "./lib/trimmed-text.js";
import { caseCorrected, currencyIn, unitNameHint } from "./lib/unit-names.js";

/** Conversion factors are not exact beyond this; rounding hides noise like 211.99999999999997. */
const SIGNIFICANT_DIGITS = 12;

/** Only unit syntax: names, prefixes, powers, products and quotients, e.g. "km/h", "m^2", "N m". */
const UNIT_SYNTAX: TextGuard = {
  pattern: /^[A-Za-z0-9_ ./*^()-]+$/,
  message: "must be a unit name such as km, mi, degC, kg, m/s or ft^2",
};

const unitName = trimmedText(50, UNIT_SYNTAX);

/**
 * The unit name as mathjs reads it: "fl oz" is mathjs's floz, and a power written without
 * its caret (m2, ft3, as on labels) gets one.
 */
function mathjsUnit(name: string): string {
  return name.replace(/\bfl\.?\s*oz\b/g, "floz").replace(/\b([A-Za-z]+)([23])\b/g, "$1^$2");
}

/** "L/100km", "kWh/100 mi": an amount per a number of units, which mathjs cannot parse. */
const PER_NUMBER = /^(.+?)\/\s*(\d+(?:\.\d+)?)\s*([A-Za-z][^/]*)$/;

/**
 * A unit name as mathjs reads it (see `mathjsUnit`), and what one of it is of that unit:
 * 1 L/100km is 1/100 L/km.
 */
function readUnit(name: string): { unit: string; scale: number } {
  const per = PER_NUMBER.exec(name);
  const count = per ? Number(per[2]) : 1;
  if (!per || !(count > 0)) return { unit: mathjsUnit(name), scale: 1 };
  return { unit: mathjsUnit(`${per[1]}/${per[3]}`), scale: 1 / count };
}

/**
 * Whether two units measure inverse quantities per distance, converted by taking the
 * reciprocal: fuel economy and fuel use (mpg, km/L and L/100km), energy use (mi/kWh and
 * kWh/100km). Not every inverse pair (seconds and hertz are not one thing), only those
 * with a distance in them.
 */
function areInversePerDistance(math: MathJsInstance, from: Unit, to: Unit): boolean {
  const length = math.Unit.BASE_DIMENSIONS.indexOf("LENGTH");
  return (
    from.dimensions[length] !== 0 && from.dimensions.every((power, i) => power === -(to.dimensions[i] ?? 0))
  );
}

/**
 * What a unit measures, in words: one of mathjs's named quantities ("length", "electric
 * charge"), else its dimensions ("length/time"). createUnit names a quantity it has no name
 * for "<unit>_STUFF": not a name.
 */
function quantityOf(math: MathJsInstance, unit: Unit): string {
  const words = (name: string) => name.toLowerCase().replaceAll("_", " ");
  for (const [name, base] of Object.entries(math.Unit.BASE_UNITS)) {
    if (name === "NONE" || name.endsWith("_STUFF")) continue;
    if (base.dimensions.every((power, i) => power === unit.dimensions[i])) return words(name);
  }
  const part = (name: string, power: number) => (power === 1 ? words(name) : `${words(name)}^${power}`);
  const dimensions = math.Unit.BASE_DIMENSIONS.map((name, i) => ({ name, power: unit.dimensions[i] ?? 0 }));
  const over = dimensions.filter((d) => d.power > 0).map((d) => part(d.name, d.power));
  const under = dimensions.filter((d) => d.power < 0).map((d) => part(d.name, -d.power));
  if (over.length === 0 && under.length === 0) return "nothing (a plain number)";
  return `${over.join("·") || "1"}${under.length > 0 ? `/${under.join("·")}` : ""}`;
}

/** Why two units cannot be converted, naming what each measures. */
function mismatch(math: MathJsInstance, names: { from: string; to: string }, from: Unit, to: Unit): string {
  const measures = (name: string, unit: Unit) => `${name} measures ${quantityOf(math, unit)}`;
  const temperatureHint = [names.from, names.to].some((name) => name === "C" || name === "F")
    ? " (C and F are coulomb and farad: for temperatures, use degC and degF)"
    : "";
  return `Cannot convert ${names.from} to ${names.to}: ${measures(names.from, from)}, ${measures(names.to, to)}${temperatureHint}`;
}

export const unitsConvert = defineSkill({
  id: "units.convert",
  title: "Convert units",
  description:
    "Converts a quantity between units of the same dimension: length (m, km, inches, feet, miles), mass (kg, pounds), " +
    "time, temperature (degC, degF, K), speed (mph, knots), area, volume (L, US gallon, tbsp), " +
    "energy (kWh, kcal), pressure, data size (B, kB, MiB), data rate (Mbps, MBps = MB/s) and more; not currencies. Takes " +
    "value, from and to " +
    "unit names, case-sensitive where the case matters (mm and Mm, Mb megabit and MB megabyte); " +
    "returns the converted value rounded to 12 significant digits.",
  tags: ["units", "convert", "measurement", "temperature", "length", "weight", "metric", "imperial"],
  params: z.object({
    value: z.number().describe("The quantity to convert, in the `from` unit."),
    from: unitName.describe(
      'Unit of `value`, e.g. "km", "lb", "degF", "mph", "gallon", "GiB", "m^2", "km/h", "L/100km".',
    ),
    to: unitName.describe(
      'Target unit, of the same dimension as `from`, e.g. "mi", "kg", "degC"; or, for a quantity per distance, ' +
        "its inverse, converted as a reciprocal (mpg to L/100km).",
    ),
  }),
  result: z.object({
    value: z.number().describe("The converted quantity, rounded to 12 significant digits."),
    unit: z
      .string()
      .describe(
        'The target unit as given, or in the case mathjs names it when given in another ("KM" is km).',
      ),
    text: z.string().describe('The result with its unit, e.g. "3.10685596119 mi".'),
  }),
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  examples: [
    { query: "convert 5 km to miles", params: { value: 5, from: "km", to: "mi" } },
    { query: "what is 100 fahrenheit in celsius", params: { value: 100, from: "degF", to: "degC" } },
    { query: "how many pounds is 70 kg", params: { value: 70, from: "kg", to: "lb" } },
    { query: "60 mph in km/h", params: { value: 60, from: "mi/h", to: "km/h" } },
  ],
  async warm() {
    await loadMath();
  },
  async run(params) {
    const { math } = await loadMath();
    const readable = (name: string) => {
      try {
        math.unit(readUnit(name).unit);
        return true;
      } catch {
        return false;
      }
    };
    // A name mathjs reads is kept as given, whatever its case: "PA" is a peta-ampere to mathjs.
    const names = {
      from: readable(params.from) ? params.from : caseCorrected(math, params.from),
      to: readable(params.to) ? params.to : caseCorrected(math, params.to),
    };
    const parseUnit = (name: string) => {
      let unit: Unit;
      try {
        unit = math.unit(readUnit(name).unit);
      } catch (err) {
        const currency = currencyIn(math, name);
        if (currency !== undefined) {
          throw new SkillError(
            `Unknown unit "${name}": ${currency} is a currency, and this skill converts units only: money ` +
              "needs a current exchange rate, which it does not have (get one from a rates API, then multiply)",
            { cause: err },
          );
        }
        throw new SkillError(`Unknown unit "${name}": ${errorMessage(err)}${unitNameHint(math, name)}`, {
          cause: err,
        });
      }
      // "2 m" parses as a quantity, whose number the conversion would silently drop; a
      // reciprocal such as "1/min" parses as one too, of 1, which changes nothing.
      if (unit.value !== null && unit.toNumber() !== 1) {
        throw new SkillError(`"${name}" holds a number: give the unit alone, and the number in value`);
      }
      return unit;
    };
    const from = parseUnit(names.from);
    const to = parseUnit(names.to);
    const inverse = !from.equalBase(to) && areInversePerDistance(math, from, to);
    if (!from.equalBase(to) && !inverse) throw new SkillError(mismatch(math, names, from, to));
    const source = readUnit(names.from);
    const target = readUnit(names.to);
    const quantity = math.unit(params.value * source.scale, source.unit);
    if (quantityOf(math, from) === "temperature" && quantity.toNumber("K") < 0) {
      throw new SkillError(
        `${params.value} ${names.from} is below absolute zero (0 K, -273.15 degC, -459.67 degF)`,
      );
    }
    let converted: number;
    try {
      // An inverse is converted in SI units, where its reciprocal is in SI units too.
      converted =
        (inverse
          ? 1 / quantity.toSI().toNumber() / math.unit(1, target.unit).toSI().toNumber()
          : quantity.toNumber(target.unit)) / target.scale;
    } catch (err) {
      throw new SkillError(`Cannot convert ${names.from} to ${names.to}: ${errorMessage(err)}`, {
        cause: err,
      });
    }
    if (!Number.isFinite(converted)) {
      throw new SkillError(`Converting ${params.value} ${names.from} to ${names.to} gives no finite number`);
    }
    const value = Number(converted.toPrecision(SIGNIFICANT_DIGITS));
    return { value, unit: names.to, text: `${value} ${names.to}` };
  },
});
