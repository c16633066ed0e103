import type { MathJsInstance } from "mathjs";
import { meantNames } from "../../src/core/member-names.js";
import { SkillError } from "../../src/core/skills/skill.js";

/**
 * Unit names are case-sensitive in mathjs, and the case can mean another unit (mm is a
 * millimetre, Mm a megametre; Mb a megabit, MB a megabyte), but agents pass on what users
 * write: "KM", "Kg", "Celsius". A word of a unit name mathjs does not know is taken in the
 * one spelling that differs from it only by case; where several do, the caller is asked.
 */

const WORD = /[A-Za-z]+/g;

/** Every unit name mathjs reads, with each prefix its unit takes, by its lower case. */
const namesByLowerCase = new WeakMap<MathJsInstance, Map<string, string[]>>();

function unitNames(math: MathJsInstance): Map<string, string[]> {
  let names = namesByLowerCase.get(math);
  if (names !== undefined) return names;
  names = new Map();
  for (const [name, unit] of Object.entries(math.Unit.UNITS)) {
    const prefixes = Object.keys((unit as { prefixes?: Record<string, unknown> }).prefixes ?? {});
    for (const spelled of [name, ...prefixes.map((prefix) => `${prefix}${name}`)]) {
      const key = spelled.toLowerCase();
      const known = names.get(key) ?? [];
      if (!known.includes(spelled)) names.set(key, [...known, spelled]);
    }
  }
  namesByLowerCase.set(math, names);
  return names;
}

function isUnit(math: MathJsInstance, word: string): boolean {
  try {
    math.unit(word);
    return true;
  } catch {
    return false;
  }
}

/**
 * `name` with each word mathjs does not know as a unit replaced by the one unit it names in
 * another case ("KM/H" is km/h). Fails a word that several units spell in other cases, naming
 * them. A name whose words are all known, or have no other spelling, is returned as it is.
 */
export function caseCorrected(math: MathJsInstance, name: string): string {
  const ambiguous: string[] = [];
  const corrected = name.replace(WORD, (word) => {
    if (isUnit(math, word)) return word;
    const spellings = (unitNames(math).get(word.toLowerCase()) ?? []).filter((spelled) => spelled !== word);
    if (spellings.length > 1) ambiguous.push(`${word} may be ${spellings.join(" or ")}`);
    return spellings.length === 1 ? (spellings[0] as string) : word;
  });
  if (ambiguous.length > 0) {
    throw new SkillError(
      `Unknown unit "${name}": unit names are case-sensitive and ${ambiguous.join("; ")}: give the one you mean`,
    );
  }
  return corrected;
}

/**
 * Advice for a unit name mathjs could not read: the units its unknown words may be
 * misspellings of ("Celcius": celsius), from the unit names without prefixes.
 */
export function unitNameHint(math: MathJsInstance, name: string): string {
  const guesses = (name.match(WORD) ?? [])
    .filter((word) => !isUnit(math, word))
    .flatMap((word) => meantNames(word, Object.keys(math.Unit.UNITS)));
  return guesses.length > 0 ? ` (did you mean ${[...new Set(guesses)].join(" or ")}?)` : "";
}

/** Currencies as agents pass them on: ISO 4217 codes of the most traded, and their names. */
const CURRENCIES = new Set(
  [
    "usd eur gbp jpy cny rmb inr cad aud chf sek nok dkk pln czk huf rub brl mxn zar krw sgd hkd nzd try aed",
    "sar ils thb idr myr php btc eth dollar dollars euro euros yen yuan renminbi rupee rupees franc francs",
    "peso pesos rouble roubles ruble rubles won real reais bitcoin bitcoins ether",
  ]
    .join(" ")
    .split(" "),
);

/**
 * The first word of a unit name that mathjs does not know and that names a currency ("USD",
 * "euros"), for a refusal that says money is not converted here: the name alone read as an
 * unknown unit ("did you mean BTU?" for BTC).
 */
export function currencyIn(math: MathJsInstance, name: string): string | undefined {
  return (name.match(WORD) ?? []).find((word) => CURRENCIES.has(word.toLowerCase()) && !isUnit(math, word));
}
