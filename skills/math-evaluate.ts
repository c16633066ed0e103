import type { EvalFunction, MathArray, MathJsInstance, MathNode, Matrix, SymbolNode } from "mathjs";
import { z } from "zod";
import { defineSkill, SkillError } from "../src/core/skills/skill.js";
import { errorMessage } from "./lib/errors.js";
import { isLightExpression } from "./lib/light-expression.js";
import { loadMath, type RestrictedMath } from "./lib/math.js";
import {
  groupedDigitsNote,
  mathjsNotation,
  operatorWordHint,
  parseHint,
  refuseCurrency,
  refuseThousandsSeparator,
} from "./lib/math-notation.js";
import { formatText, INEXACT_RESULT_NOTE, inexactLiteralNote } from "./lib/math-precision.js";
import { trimmedText } from "./lib/trimmed-text.js";

/** Longer inputs are not "an expression" any more, and parsing cost grows with them. */
const MAX_EXPRESSION_LENGTH = 2000;
/** A formatted result beyond this is a data dump, not an answer. */
const MAX_RESULT_LENGTH = 100_000;
/**
 * A dense matrix formats as at least one character an element, ", " between elements and
 * brackets around each row: at least 3 characters an element. One with more elements than
 * this is too large before it is formatted, which for a million elements (`ones(1000,
 * 1000)`) takes seconds, far longer than computing them.
 */
const MAX_RESULT_ELEMENTS = Math.floor(MAX_RESULT_LENGTH / 3);

/**
 * Every kind of result an expression can have, named after mathjs's `typeOf` in lower case
 * (matrices and arrays are "matrix"). A class not listed here is reported as "object".
 */
const RESULT_TYPES = [
  "number",
  "boolean",
  "string",
  "null",
  "bignumber",
  "bigint",
  "fraction",
  "complex",
  "unit",
  "matrix",
  "index",
  "help",
  "object",
] as const;
type ResultType = (typeof RESULT_TYPES)[number];

const valueSchema = z
  .union([z.number(), z.string(), z.boolean()])
  .describe(
    "The result: a number for real numeric results; a boolean for comparisons; a string for everything else " +
      '(units "1.9685 inch", matrices "[[2, 4], [6, 8]]", complex "2i", fractions "1/3", big numbers, Infinity, NaN).',
  );

export const mathEvaluate = defineSkill({
  id: "math.evaluate",
  title: "Evaluate a math expression",
  description:
    'Evaluates a mathematical expression with mathjs, e.g. "2^10", "sqrt(2) * pi", "sin(45 deg)", "5 cm to inch", ' +
    '"det([1,2;3,4])", "a = 3; a^2". Returns `value` (number, boolean, or string for units, matrices and complex numbers) ' +
    "and `text`. `×`, `÷` and `**` are read as *, / and ^; `log(x)` is the natural logarithm (log10(x) for base 10). " +
    "Write numbers without thousands separators or currency signs (86.40, not $86.40). Use it for arithmetic (add, subtract, multiply, divide, percentages), algebra on numbers, " +
    "statistics, matrices and unit math instead of guessing.",
  tags: ["math", "calculator", "arithmetic", "expression", "multiply", "matrix", "statistics"],
  params: z.object({
    expression: trimmedText(MAX_EXPRESSION_LENGTH).describe(
      "mathjs expression; several statements may be separated by ';' or newlines and the last one is the result. " +
        "Variables may be assigned (a = 2); defining functions is not supported. Numbers are floating-point, exact " +
        'as integers up to 9007199254740991: for exact larger integers write bignumber("12345678901234567890").',
    ),
  }),
  result: z.object({
    value: valueSchema,
    type: z.enum(RESULT_TYPES).describe(`Kind of result: ${RESULT_TYPES.join(", ")}.`),
    text: z
      .string()
      .describe(
        "The result formatted with at most 14 significant digits (an exact integer whole), in plain notation " +
          "from 1e-7 up to 1e21.",
      ),
    note: z
      .string()
      .optional()
      .describe(
        "Present when the answer may not be what was meant: digits grouped as by a thousands separator " +
          "inside brackets, such as sum(1,234), are read as separate values (1 and 234); an integer beyond " +
          "9007199254740991, in the expression or the result, is not exact in floating point.",
      ),
  }),
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  examples: [
    { query: "what is 2 to the power of 10", params: { expression: "2^10" } },
    { query: "what is 17 times 23", params: { expression: "17 * 23" } },
    {
      query: "calculate the square root of 144 plus 15% of 80",
      params: { expression: "sqrt(144) + 0.15 * 80" },
    },
    { query: "determinant of the matrix [[1,2],[3,4]]", params: { expression: "det([1, 2; 3, 4])" } },
    {
      query: "mean and standard deviation of 2, 4, 4, 4, 5, 5, 7, 9",
      params: { expression: "x = [2, 4, 4, 4, 5, 5, 7, 9]; [mean(x), std(x)]" },
    },
  ],
  async warm() {
    await loadMath();
  },
  isLightCall(params) {
    const loaded = loadMath.loaded();
    if (!loaded) return false;
    try {
      return prepareCached(loaded, params.expression).light;
    } catch {
      return false; // a malformed expression: its run says what is wrong
    }
  },
  async run(params) {
    const loaded = await loadMath();
    const { math } = loaded;
    const { compiled, groupedDigits, inexactLiteral } = prepareCached(loaded, params.expression);
    let result: unknown;
    try {
      // A fresh scope per call: variables never leak between executions or owners.
      result = compiled.evaluate(new Map());
    } catch (err) {
      const message = errorMessage(err);
      throw new SkillError(
        `Could not evaluate ${quote(params.expression)}: ${message}${operatorWordHint(params.expression, message)}`,
        { cause: err },
      );
    }
    const { inexact, ...answer } = describeResult(math, lastResult(math, result));
    // A literal read inexactly already explains an inexact result, and says what to write instead.
    const precision = inexactLiteral ?? (inexact ? INEXACT_RESULT_NOTE : undefined);
    const notes = [groupedDigits, precision].filter((text) => text !== undefined);
    return notes.length === 0 ? answer : { ...answer, note: notes.join(" ") };
  },
});

/** An expression ready to evaluate, and whether it is light enough for the main thread. */
interface PreparedExpression {
  compiled: EvalFunction;
  light: boolean;
  /** What the answer tells of readings the caller may not have meant (groupedDigitsNote, inexactLiteralNote). */
  groupedDigits: string | undefined;
  inexactLiteral: string | undefined;
}

/**
 * Prepared expressions by source text, least recently used dropped first. Agents repeat
 * expressions, and parsing plus compiling costs more than evaluating; a compiled
 * expression holds no state (each call gets a fresh scope), so sharing it is safe.
 */
const preparedCache = new Map<string, PreparedExpression>();

/**
 * Names an expression may not use: each reaches the shared instance itself (`config`
 * changes its settings, `typed.clear()` removes its types), and both are dependencies
 * other functions are built with, so they cannot be replaced like the functions
 * lib/math.ts disables.
 */
const REFUSED_SYMBOLS = new Set(["config", "typed"]);
const PREPARED_CACHE_SIZE = 500;

function prepareCached({ math, parse }: RestrictedMath, expression: string): PreparedExpression {
  const cached = preparedCache.get(expression);
  if (cached) {
    preparedCache.delete(expression);
    preparedCache.set(expression, cached);
    return cached;
  }
  refuseCurrency(expression);
  refuseThousandsSeparator(expression);
  const node = parseExpression(parse, expression);
  const prepared = {
    compiled: node.compile(),
    light: isLightExpression(math, node),
    groupedDigits: groupedDigitsNote(expression),
    inexactLiteral: inexactLiteralNote(expression),
  };
  preparedCache.set(expression, prepared);
  if (preparedCache.size > PREPARED_CACHE_SIZE) {
    const oldest = preparedCache.keys().next();
    if (!oldest.done) preparedCache.delete(oldest.value);
  }
  return prepared;
}

function parseExpression(parse: (expression: string) => MathNode, expression: string): MathNode {
  let node: MathNode;
  try {
    node = parse(mathjsNotation(expression));
  } catch (err) {
    throw new SkillError(
      `Invalid expression ${quote(expression)}: ${errorMessage(err)}${parseHint(expression)}`,
      {
        cause: err,
      },
    );
  }
  const refused = node.filter(
    (child) => child.type === "SymbolNode" && REFUSED_SYMBOLS.has((child as SymbolNode).name),
  )[0] as SymbolNode | undefined;
  if (refused) {
    throw new SkillError(
      `Invalid expression ${quote(expression)}: ${refused.name} is not available: it would change the calculator for every later expression`,
    );
  }
  // User-defined functions allow recursion, which can block the process for hours
  // (f(x) = f(x-1) + f(x-1)); plain expressions cannot.
  if (node.filter((child) => child.type === "FunctionAssignmentNode").length > 0) {
    throw new SkillError(
      `Invalid expression ${quote(expression)}: defining functions (f(x) = ...) is not supported; write the computation directly`,
    );
  }
  return node;
}

/** `a = 2; a * 3` evaluates to a ResultSet; its last entry is the answer. */
function lastResult(math: MathJsInstance, result: unknown): unknown {
  if (math.typeOf(result) !== "ResultSet") return result;
  const entries = (result as { entries: unknown[] }).entries;
  if (entries.length === 0) throw new SkillError("The expression has no visible result: end it with a value");
  return entries[entries.length - 1];
}

function describeResult(
  math: MathJsInstance,
  result: unknown,
): { value: number | string | boolean; type: ResultType; text: string; inexact: boolean } {
  // Exact integers are the commonest answer, and math.format costs more than the whole
  // evaluation; for them String() gives the text formatText would (every digit, plain).
  if (typeof result === "number" && Number.isSafeInteger(result)) {
    return { value: result, type: "number", text: String(result), inexact: false };
  }
  const mathType = math.typeOf(result);
  if (mathType === "undefined") throw new SkillError("The expression has no value");
  if (mathType === "function") {
    throw new SkillError("The expression is a function, not a value: call it with arguments, e.g. sqrt(2)");
  }
  if (mathType === "DenseMatrix" || mathType === "Array") {
    const elements = (math.size(result as MathArray | Matrix).valueOf() as number[]).reduce(
      (a, b) => a * b,
      1,
    );
    if (elements > MAX_RESULT_ELEMENTS) {
      throw new SkillError(`The result is too large to return (a matrix of ${elements} elements)`);
    }
  }
  const { text, inexact } = formatText(math, result);
  // Checked before any second formatting so a huge matrix is formatted only once.
  if (text.length > MAX_RESULT_LENGTH) {
    throw new SkillError(`The result is too large to return (${text.length} characters formatted)`);
  }
  if (typeof result === "number") {
    // JSON has no Infinity or NaN: those are returned as text.
    return { value: Number.isFinite(result) ? result : String(result), type: "number", text, inexact };
  }
  if (typeof result === "boolean") return { value: result, type: "boolean", text, inexact };
  if (typeof result === "string") return { value: result, type: "string", text: result, inexact };
  // Big numbers and fractions keep their full precision in `value`.
  return { value: math.format(result), type: typeName(mathType), text, inexact };
}

function typeName(mathType: string): ResultType {
  if (mathType === "DenseMatrix" || mathType === "SparseMatrix" || mathType === "Array") return "matrix";
  const name = mathType.toLowerCase();
  return RESULT_TYPES.find((type) => type === name) ?? "object";
}

function quote(expression: string): string {
  return JSON.stringify(expression.length > 80 ? `${expression.slice(0, 77)}...` : expression);
}
