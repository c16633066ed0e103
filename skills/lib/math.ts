import { createRequire } from "node:module";
import type { ConfigOptions, MathJsInstance, MathNode } from "mathjs";
import { type Lazy, lazy } from "./lazy.js";

/**
 * One restricted mathjs instance shared by `math.evaluate` and `units.convert`, with
 * everyday units mathjs lacks (EVERYDAY_UNITS). mathjs
 * takes a noticeable time to load, so it is imported on first use, not at start-up.
 */
export interface RestrictedMath {
  math: MathJsInstance;
  /** The parser, kept before `parse` is disabled inside expressions. */
  parse(expression: string): MathNode;
}

/** Matrices larger than this would let one expression exhaust the process's memory. */
const MAX_MATRIX_ELEMENTS = 1_000_000;

export const loadMath: Lazy<RestrictedMath> = lazy(createRestrictedMath);

/**
 * mathjs's single-file build (an export of the package, the same code as its modules).
 * Importing the package's ES modules, about 1,000 files, held the event loop for 0.75-0.9 s
 * in stalls of up to 0.3 s (2-3 s in all on a busy 2-core machine), and every request
 * waited through them when the skill warmed up; the bundle loads in one 60-110 ms stall
 * and evaluates expressions as fast.
 */
const MATHJS_BUNDLE = "mathjs/lib/browser/math.js";

/** The bundle's export: mathjs's default instance, whose `create` is bound to its factories. */
interface MathBundle {
  create(config?: ConfigOptions): MathJsInstance;
}

async function createRestrictedMath(): Promise<RestrictedMath> {
  // A fresh instance with every function, restricted below without touching the default.
  const bundle = createRequire(import.meta.url)(MATHJS_BUNDLE) as MathBundle;
  const math = bundle.create();
  restoreClassNames(math);
  const parse = math.parse;
  const original = {
    zeros: math.zeros,
    ones: math.ones,
    identity: math.identity,
    random: math.random,
    randomInt: math.randomInt,
    resize: math.resize,
    range: math.range,
  };

  // mathjs's security guide: functions that reach the parser, change the instance or
  // define units must not be callable from an expression. `config` and `typed` are not
  // among them: other functions are built with them (eigs, schur, lyap, sylvester and
  // intersect read config's tolerances), and replacing config broke those; expressions
  // are refused their names instead (REFUSED_SYMBOLS in math-evaluate.ts).
  const disabled = [
    "import",
    "createUnit",
    "evaluate",
    "parse",
    "simplify",
    "simplifyConstant",
    "simplifyCore",
    "rationalize",
    "derivative",
    "compile",
    "resolve",
    "reviver",
    "replacer",
    "parser",
  ];
  const overrides: Record<string, (...args: unknown[]) => unknown> = {};
  for (const name of disabled) {
    overrides[name] = () => {
      throw new Error(`Function ${name} is disabled`);
    };
  }

  // Creating functions are capped so `zeros(1e5, 1e5)` fails instead of exhausting memory.
  const sized = (name: keyof typeof original, sizeArgs: (args: unknown[]) => unknown[]) => {
    const fn = original[name] as (...args: unknown[]) => unknown;
    overrides[name] = (...args: unknown[]) => {
      checkElementCount(name, elementCount(sizeArgs(args)));
      return fn(...args);
    };
  };
  sized("zeros", (args) => args);
  sized("ones", (args) => args);
  sized("identity", (args) => args);
  sized("random", (args) => args.filter(isArrayLike));
  sized("randomInt", (args) => args.filter(isArrayLike));
  sized("resize", (args) => [args[1]]);
  // `range` has two implementations: the JS function (end excluded) and the transform that
  // expressions use, for `1:4`, `a[2:end]` and `range(1, 4)` alike (end included, the
  // mathjs expression syntax). `import` with `override` deletes the transform unless the
  // imported function carries one as `.transform`, so both are capped and handed over.
  const capRange =
    (fn: (...args: unknown[]) => unknown) =>
    (...args: unknown[]) => {
      checkElementCount("range", rangeLength(args));
      return fn(...args);
    };
  // mathjs's types do not declare the transform table; it is keyed by function name.
  const transforms = math.expression.transform as unknown as Record<string, unknown>;
  const rangeTransform = transforms.range as (...args: unknown[]) => unknown;
  overrides.range = Object.assign(capRange(original.range as (...args: unknown[]) => unknown), {
    transform: capRange(rangeTransform),
  });

  // Defined before `createUnit` is disabled: the instance's own units, not an expression's.
  // The corrected ones first: tsp and tbsp are defined from them.
  math.createUnit(CORRECTED_UNITS, { override: true });
  math.createUnit(EVERYDAY_UNITS);
  // mathjs's bit takes no prefix: Mbit and Gbit were unknown, where Mb and megabits were not.
  math.createUnit({ bit: { definition: "1 b", prefixes: "binary_short" } }, { override: true });
  math.import(overrides, { override: true });
  return { math, parse };
}

/**
 * Everyday units mathjs does not know, by their usual names (`units.convert` lists energy,
 * speed and data sizes; kcal, knots and tablespoons are common conversions). Not "kt" for
 * knots: mathjs reads it as kilotonnes.
 */
const EVERYDAY_UNITS = {
  // The thermochemical calorie; "Cal", the food Calorie, is a kilocalorie.
  cal: { definition: "4.184 J", prefixes: "short", aliases: ["calorie", "calories"] },
  Cal: { definition: "4184 J" },
  // Spelled as the description promises ("pounds") and as British English writes metres:
  // mathjs knows only lb, lbm and poundmass, and meter.
  pound: { definition: "1 lbm", aliases: ["pounds"] },
  metre: { definition: "1 m", prefixes: "long", aliases: ["metres"] },
  stones: { definition: "1 stone" },
  horsepower: { definition: "1 hp" },
  mph: { definition: "1 mi/h" },
  kph: { definition: "1 km/h", aliases: ["kmh"] },
  knot: { definition: "1852 m/h", aliases: ["knots", "kn"] },
  nmi: { definition: "1852 m", aliases: ["nauticalmile", "nauticalmiles"] },
  tsp: { definition: "1 teaspoon" },
  tbsp: { definition: "1 tablespoon" },
  // "ct" is read as a centitonne (c + t, 10 kg); written as a unit it is a carat.
  carat: { definition: "0.2 g", aliases: ["carats", "ct"] },
  ha: { definition: "1 hectare" },
  rpm: { definition: "1/min" },
  mpg: { definition: "1 mi/gal" },
  // Kilobyte as most people write it; kB is mathjs's, and KiB the binary one.
  KB: { definition: "1 kB" },
  // Data rates as network speeds are written (kbps, Mbps, Gbps: decimal prefixes, as mathjs's b
  // takes them).
  bps: { definition: "1 b/s", prefixes: "binary_short" },
  // And in bytes (MBps, GBps): without these, the case correction read GBps as Gbps, 8 times off.
  Bps: { definition: "1 B/s", prefixes: "binary_short" },
  KBps: { definition: "1 kBps" },
  au: { definition: "149597870700 m" },
  ly: { definition: "9460730472580800 m", aliases: ["lightyear", "lightyears"] },
};

/**
 * mathjs's units that are not what their names mean where they are used, redefined:
 * - Its teaspoon and tablespoon are metric (5 and 15 ml) while its cup, fl oz, pint and
 *   gallon are US customary, so a cup was 15.77 tablespoons; all are US customary here (a
 *   tablespoon is half a US fluid ounce, a teaspoon a third of a tablespoon).
 * - Some definitions are rounded to six digits, though results are given to twelve: the
 *   (international) acre is 43,560 square feet exactly, a torr 1/760 of an atmosphere, a
 *   millimetre of mercury 133.322387415 Pa, and the electronvolt has its exact 2019 SI value
 *   (mathjs's is CODATA 2010's).
 */
const CORRECTED_UNITS = {
  teaspoon: { definition: "4.92892159375 ml", prefixes: "none", aliases: ["teaspoons"] },
  tablespoon: { definition: "14.78676478125 ml", prefixes: "none", aliases: ["tablespoons"] },
  acre: { definition: "43560 ft^2", aliases: ["acres"] },
  torr: { definition: `${101325 / 760} Pa` },
  mmHg: { definition: "133.322387415 Pa" },
  eV: { definition: "1.602176634e-19 J", prefixes: "short" },
  electronvolt: { definition: "1 eV", prefixes: "long", aliases: ["electronvolts"] },
};

/**
 * The bundle is minified, which renames some of mathjs's classes (ResultSet becomes "e"),
 * and `typeOf`, inside expressions too, reports a value's class by its constructor's name.
 * Each class gets back the name it is exported under. (BigNumber's class is decimal.js's
 * `Decimal` in either build, and `typeOf` names it BigNumber without reading it.)
 */
function restoreClassNames(math: MathJsInstance): void {
  // By key, since reading a property builds it: reading all of them would build every
  // function of the instance (200 ms), not only the 45 classes.
  const exports = math as unknown as Record<string, unknown>;
  for (const name of Object.keys(math)) {
    if (!/^[A-Z]/.test(name) || name === "BigNumber") continue;
    const value = exports[name];
    if (typeof value === "function" && value.name !== name)
      Object.defineProperty(value, "name", { value: name });
  }
}

function checkElementCount(name: string, count: number): void {
  if (count > MAX_MATRIX_ELEMENTS) {
    throw new Error(`${name}() would create more than ${MAX_MATRIX_ELEMENTS} elements`);
  }
}

function isArrayLike(value: unknown): boolean {
  return Array.isArray(value) || (typeof value === "object" && value !== null && "toArray" in value);
}

function toNumber(value: unknown): number | undefined {
  if (typeof value === "number") return value;
  // BigNumber and Fraction convert through valueOf (a Fraction has no toNumber, and its
  // ranges skipped the cap: `fraction(1):fraction(1e7)` ran out of memory).
  if (typeof value === "object" && value !== null) {
    const converted = Number(value);
    return Number.isNaN(converted) ? undefined : converted;
  }
  return undefined;
}

/** Product of every numeric dimension found in the arguments (arrays and matrices flattened). */
function elementCount(args: unknown[]): number {
  let product = 1;
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item);
      return;
    }
    if (
      typeof value === "object" &&
      value !== null &&
      "toArray" in value &&
      typeof value.toArray === "function"
    ) {
      visit(value.toArray());
      return;
    }
    const dimension = toNumber(value);
    if (dimension !== undefined) product *= Math.abs(dimension);
  };
  for (const arg of args) visit(arg);
  return product;
}

/** Length of `range(start, end, step)` or `range("start:step:end")`; 0 when unknown (mathjs then decides). */
function rangeLength(args: unknown[]): number {
  let numbers: (number | undefined)[];
  if (typeof args[0] === "string") {
    const parts = args[0].split(":").map((part) => Number(part));
    // The string form is start:end or start:step:end.
    numbers = parts.length === 3 ? [parts[0], parts[2], parts[1]] : parts;
  } else {
    numbers = args.slice(0, 3).map(toNumber);
  }
  const [start, end, step = 1] = numbers;
  // A zero step is mathjs's to refuse ("Step must be non-zero").
  if (start === undefined || end === undefined || step === 0) return 0;
  const length = Math.floor(Math.abs((end - start) / step)) + 1;
  // An infinite bound (`1:1e309`) makes an endless range: capped like any other, where mathjs
  // filled memory until V8 aborted the process. So do infinities whose length reads NaN (an
  // infinite step to an infinite end, `1:1e309:1e309`: 1, Infinity, Infinity…). A NaN bound or
  // step makes a range of at most one element.
  if (!Number.isNaN(length)) return length;
  return [start, end, step].some(Number.isNaN) ? 0 : Number.POSITIVE_INFINITY;
}
