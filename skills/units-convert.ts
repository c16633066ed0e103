import type { Unit } from "mathjs";
import { z } from "zod";
import { defineSkill, SkillError } from "../src/core/skills/skill.js";
import { errorMessage } from "./lib/errors.js";
import { loadMath } from "./lib/math.js";

/** Conversion factors are not exact beyond this; rounding hides noise like 211.99999999999997. */
const SIGNIFICANT_DIGITS = 12;

const unitName = z
  .string()
  .trim()
  .min(1)
  .max(50)
  // Only unit syntax: names, prefixes, powers, products and quotients, e.g. "km/h", "m^2", "N m".
  .regex(/^[A-Za-z0-9_ ./*^()-]+$/, "must be a unit name such as km, mi, degC, kg, m/s or ft^2");

/**
 * The unit name as mathjs reads it. mathjs has no "mph", a common name the params list; the
 * shared mathjs instance refuses createUnit (math.evaluate must not define units), so it is
 * rewritten here, in parentheses so that "m/mph" stays m/(mi/h) rather than m/mi/h.
 */
function mathjsUnit(name: string): string {
  return name.replace(/\bmph\b/g, "(mi/h)");
}

export const unitsConvert = defineSkill({
  id: "units.convert",
  title: "Convert units",
  description:
    "Converts a quantity between units of the same dimension: length (m, km, inches, feet, miles), mass (kg, pounds), " +
    "time, temperature (degC, degF, K), " +
    "speed, area, volume, energy, pressure, data size (B, kB, MiB) and more. Takes value, from and to unit names; " +
    "returns the converted value rounded to 12 significant digits.",
  tags: ["units", "convert", "measurement", "temperature", "length", "weight", "metric", "imperial"],
  params: z.object({
    value: z.number().describe("The quantity to convert, in the `from` unit."),
    from: unitName.describe(
      'Unit of `value`, e.g. "km", "lb", "degF", "mph", "gallon", "GiB", "m^2", "km/h".',
    ),
    to: unitName.describe('Target unit, of the same dimension as `from`, e.g. "mi", "kg", "degC".'),
  }),
  result: z.object({
    value: z.number().describe("The converted quantity, rounded to 12 significant digits."),
    unit: z.string().describe("The target unit as given."),
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
    const parseUnit = (name: string) => {
      let unit: Unit;
      try {
        unit = math.unit(mathjsUnit(name));
      } catch (err) {
        throw new SkillError(`Unknown unit "${name}": ${errorMessage(err)}`, { cause: err });
      }
      // "2 m" parses as a quantity, whose number the conversion would silently drop; a
      // reciprocal such as "1/min" parses as one too, of 1, which changes nothing.
      if (unit.value !== null && unit.toNumber() !== 1) {
        throw new SkillError(`"${name}" holds a number: give the unit alone, and the number in value`);
      }
      return unit;
    };
    const from = parseUnit(params.from);
    const to = parseUnit(params.to);
    if (!from.equalBase(to)) {
      throw new SkillError(
        `Cannot convert ${params.from} to ${params.to}: they measure different kinds of quantity`,
      );
    }
    let converted: number;
    try {
      converted = math.unit(params.value, mathjsUnit(params.from)).toNumber(mathjsUnit(params.to));
    } catch (err) {
      throw new SkillError(`Cannot convert ${params.from} to ${params.to}: ${errorMessage(err)}`, {
        cause: err,
      });
    }
    if (!Number.isFinite(converted)) {
      throw new SkillError(
        `Converting ${params.value} ${params.from} to ${params.to} gives no finite number`,
      );
    }
    const value = Number(converted.toPrecision(SIGNIFICANT_DIGITS));
    return { value, unit: params.to, text: `${value} ${params.to}` };
  },
});
