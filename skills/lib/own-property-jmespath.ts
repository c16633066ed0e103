import {
  type compile,
  type JSONArray,
  type JSONObject,
  type JSONValue,
  TreeInterpreter,
  TYPE_ARRAY,
  TYPE_EXPREF,
  TYPE_OBJECT,
} from "@jmespath-community/jmespath";

type ExpressionNode = ReturnType<typeof compile>;
type Interpreter = typeof TreeInterpreter;
type ScopeEntry = Parameters<Interpreter["withScope"]>[0];
type Visited = ReturnType<Interpreter["visit"]>;

// The library exports only its shared instance; its class is that instance's constructor.
const LibraryInterpreter = TreeInterpreter.constructor as new () => Interpreter;

/**
 * The library's interpreter with JSON's notion of a key: a field is found only when the
 * object has it as its own property, and an object the expression builds keeps every key.
 * The library reads `obj[name]`, so `constructor`, `toString` or `__proto__` resolved to
 * Object.prototype members (a function cannot even leave the worker), where JMESPath says
 * a key the data lacks is null; and it builds `{...}`, merge() and group_by() by assignment,
 * so a key `__proto__` set the new object's prototype instead of becoming a key (or, in
 * group_by(), a key `constructor` found the inherited function and failed).
 */
class OwnPropertyInterpreter extends LibraryInterpreter {
  constructor() {
    super();
    // The built-ins that build an object by assignment; the rest only read (items, values, keys).
    this.runtime.register("merge" as never, mergeOwnProperties, [{ types: [TYPE_OBJECT], variadic: true }], {
      override: true,
    });
    this.runtime.register(
      "group_by" as never,
      ([items, keyExpression]) =>
        groupByKey(items as JSONArray, (item) => this.visit(keyExpression as ExpressionNode, item)),
      [{ types: [TYPE_ARRAY] }, { types: [TYPE_EXPREF] }],
      { override: true },
    );
  }

  override visit(node: ExpressionNode, value: JSONValue | ExpressionNode): Visited {
    switch (node.type) {
      case "Field":
        return isJsonObject(value) && Object.hasOwn(value, node.name) ? (value[node.name] ?? null) : null;
      // Checked here so that a failure names the operator and the operand at fault (the
      // library says only "not-a-number: undefined"); then computed by the library, on the
      // values found here (its operands are not visited twice).
      case "Arithmetic": {
        const left = this.visit(node.left, value);
        const right = this.visit(node.right, value);
        assertArithmetic(node.operator, [node.left, left], [node.right, right]);
        return super.visit({ ...node, left: literal(left), right: literal(right) }, value);
      }
      case "Unary": {
        const operand = this.visit(node.operand, value);
        assertArithmetic(node.operator, [node.operand, operand]);
        return super.visit({ ...node, operand: literal(operand) }, value);
      }
      case "MultiSelectHash": {
        const collected: JSONObject = {};
        for (const child of node.children) {
          defineKey(collected, child.name, this.visit(child.value, value) as JSONValue);
        }
        return collected;
      }
      default:
        return super.visit(node, value);
    }
  }

  // A let expression evaluates its body in a new interpreter the library builds from its
  // own class (sharing this one's functions); it must look keys up the same way.
  override withScope(scope: ScopeEntry): Interpreter {
    return Object.setPrototypeOf(super.withScope(scope), OwnPropertyInterpreter.prototype) as Interpreter;
  }
}

const OPERATOR_SIGNS: Record<string, string> = {
  Plus: "+",
  Minus: "-",
  Multiply: "*",
  Star: "*",
  Divide: "/",
  Modulo: "%",
  Div: "//",
};

/**
 * Throws, in words, what the library's arithmetic would refuse: an operand that is not a
 * number (most often null, a key the data lacks: `a/b` is a divided by b in JMESPath, and
 * `first-name` first minus name), or a division by zero.
 */
function assertArithmetic(operator: string, ...operands: [ExpressionNode, Visited][]): void {
  const sign = OPERATOR_SIGNS[operator] ?? operator;
  // A unary sign's one operand comes after it; a binary one's come before and after.
  const sides = operands.length === 1 ? ["after"] : ["before", "after"];
  operands.forEach(([node, found], index) => {
    if (typeof found === "number") return;
    const operand = node.type === "Field" ? JSON.stringify(node.name) : `the value ${sides[index]} it`;
    const what =
      found === null
        ? "null (a key the data does not have, or a null)"
        : `${articled(jsonTypeName(found))}, not a number`;
    const pathHint =
      sign === "/" && found === null && node.type === "Field"
        ? " ('/' divides in JMESPath: a path is written a.b)"
        : "";
    throw new Error(`'${sign}' needs numbers, and ${operand} is ${what}${pathHint}`);
  });
  if ((sign === "/" || sign === "//") && operands[1]?.[1] === 0) throw new Error(`'${sign}' divides by zero`);
}

function literal(value: Visited): ExpressionNode {
  return { type: "Literal", value: value as JSONValue };
}

function articled(typeName: string): string {
  return /^[aeiou]/.test(typeName) ? `an ${typeName}` : `a ${typeName}`;
}

function isJsonObject(value: unknown): value is JSONObject {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Adds `key` as an own property, as JSON.parse does, even when it is "__proto__". */
function defineKey(target: JSONObject, key: string, value: JSONValue): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function mergeOwnProperties(objects: unknown[]): JSONObject {
  const merged: JSONObject = {};
  for (const object of objects as JSONObject[]) {
    for (const [key, value] of Object.entries(object)) defineKey(merged, key, value);
  }
  return merged;
}

function groupByKey(items: JSONArray, keyOf: (item: JSONValue) => unknown): JSONObject {
  const groups = new Map<string, JSONValue[]>();
  for (const item of items) {
    // As the library does: a null item is grouped by what the key expression gives for {}.
    const key = keyOf(item ?? {});
    if (typeof key !== "string") {
      throw new Error(`group_by() needs a string key, received ${jsonTypeName(key)}`);
    }
    const members = groups.get(key);
    if (members === undefined) groups.set(key, [item]);
    else members.push(item);
  }
  const grouped: JSONObject = {};
  for (const [key, members] of groups) defineKey(grouped, key, members);
  return grouped;
}

function jsonTypeName(value: unknown): string {
  if (value === null) return "null";
  return Array.isArray(value) ? "array" : typeof value;
}

const interpreter = new OwnPropertyInterpreter();

/** Evaluates a compiled JMESPath expression against JSON data, seeing only the data's own keys. */
export function searchOwnProperties(ast: ExpressionNode, data: JSONValue): JSONValue {
  return interpreter.search(ast, data);
}
