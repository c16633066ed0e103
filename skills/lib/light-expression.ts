import type { MathJsInstance, MathNode } from "mathjs";

/**
 * Plain scalar arithmetic: number and boolean constants, a few named constants, the
 * arithmetic, comparison and logical operators, and scalar functions that take constant
 * time per argument. An expression made only of these evaluates in time proportional to
 * its size, with no allocation to speak of; anything else (matrices, ranges, units,
 * factorials, assignments, several statements…) may not, and runs isolated.
 */
const LIGHT_OPERATORS: ReadonlySet<string> = new Set([
  "add",
  "subtract",
  "multiply",
  "divide",
  "unaryMinus",
  "unaryPlus",
  "pow",
  "mod",
  "smaller",
  "larger",
  "smallerEq",
  "largerEq",
  "equal",
  "unequal",
  "and",
  "or",
  "xor",
  "not",
]);

const LIGHT_CONSTANTS: ReadonlySet<string> = new Set(["pi", "e", "tau", "phi", "Infinity", "NaN"]);

const LIGHT_FUNCTIONS: ReadonlySet<string> = new Set([
  "abs",
  "sqrt",
  "cbrt",
  "exp",
  "log",
  "log2",
  "log10",
  "sin",
  "cos",
  "tan",
  "asin",
  "acos",
  "atan",
  "atan2",
  "sinh",
  "cosh",
  "tanh",
  "round",
  "floor",
  "ceil",
  "fix",
  "sign",
  "min",
  "max",
  "hypot",
]);

/** Beyond this many nodes an expression is not "small", whatever it contains. */
const MAX_LIGHT_NODES = 256;

/**
 * Whether a parsed expression is plain scalar arithmetic (see above) of at most
 * `MAX_LIGHT_NODES` nodes: cheap and bounded to evaluate, so it needs no isolation.
 */
export function isLightExpression(math: MathJsInstance, root: MathNode): boolean {
  let nodes = 0;
  const visit = (node: MathNode): boolean => {
    if (++nodes > MAX_LIGHT_NODES) return false;
    if (math.isConstantNode(node)) return typeof node.value === "number" || typeof node.value === "boolean";
    if (math.isSymbolNode(node)) return LIGHT_CONSTANTS.has(node.name);
    if (math.isParenthesisNode(node)) return visit(node.content);
    if (math.isOperatorNode(node)) return LIGHT_OPERATORS.has(node.fn) && node.args.every(visit);
    if (math.isFunctionNode(node)) {
      return math.isSymbolNode(node.fn) && LIGHT_FUNCTIONS.has(node.fn.name) && node.args.every(visit);
    }
    return false;
  };
  return visit(root);
}
