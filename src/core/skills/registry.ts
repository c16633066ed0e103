import { z } from "zod";
import { SkillNames } from "../discovery/skill-names.js";
import { ServiceError } from "../errors.js";
import { sensitiveMarkProblems } from "./sensitive-params.js";
import type { Skill } from "./skill.js";
import { definitionProblems, exampleProblems } from "./skill-definition.js";
import { declaredAt } from "./skill-origin.js";
import { strictParams } from "./strict-params.js";

/** JSON Schema as produced by `z.toJSONSchema`. */
export type JsonSchema = Record<string, unknown>;

/** A skill with its JSON Schemas derived once, when it enters the catalog. */
export interface CatalogSkill {
  skill: Skill;
  /** What a call's params are checked against (see `checkedParams`). */
  params: z.ZodType;
  /** JSON Schema of the params object, as a caller must send it. */
  paramsSchema: JsonSchema;
  /** JSON Schema of the result object, as the skill returns it. */
  resultSchema: JsonSchema;
}

/**
 * Derives the JSON Schemas of a skill from its zod schemas (DESIGN.md: derived once), and
 * refuses a skill that cannot be served as defined: a malformed definition
 * (`definitionProblems`), examples its own params refuse (`exampleProblems`), or
 * credentials its records would keep in clear (`sensitiveMarkProblems`). A skill enters
 * the catalog at start-up, so that stops start-up with a message naming the skill, the
 * field and the rule, rather than serving it broken or leaving a secret on the dashboard.
 */
export function toCatalogSkill(skill: Skill): CatalogSkill {
  let entry = derived.get(skill);
  if (entry === undefined) {
    entry = deriveCatalogSkill(skill);
    derived.set(skill, entry);
  }
  return entry;
}

/**
 * Each skill's catalog entry, derived once per skill object: start-up checks the skills
 * (`checkSkills`, before the store opens) and then builds the core's registry from the same
 * objects, and deriving the JSON Schemas and checking the examples again cost about 12 ms
 * of every start for the built-in skills. A skill is a definition, never changed once made.
 */
const derived = new WeakMap<Skill, CatalogSkill>();

function deriveCatalogSkill(skill: Skill): CatalogSkill {
  const malformed = definitionProblems(skill);
  if (malformed.length > 0) throw skillRefused(skill, malformed);
  const sensitive = [
    ...sensitiveMarkProblems(skill.params, "params"),
    ...sensitiveMarkProblems(skill.result, "result"),
  ];
  if (sensitive.length > 0) throw skillRefused(skill, sensitive);
  const params = checkedParams(skill.params);
  const examples = exampleProblems(skill.examples, params);
  if (examples.length > 0) throw skillRefused(skill, examples);
  return {
    skill,
    params,
    paramsSchema: z.toJSONSchema(params, { io: "input", unrepresentable: "any" }) as JsonSchema,
    resultSchema: z.toJSONSchema(skill.result, { io: "output", unrepresentable: "any" }) as JsonSchema,
  };
}

/**
 * A skill's params schema, refusing members it does not name, at every depth
 * (`strictParams`). zod drops unknown members by default, so a misnamed param (`timezone`
 * where the skill takes `to_timezone`, `json` where it takes `body`) would run with the
 * default and answer wrongly, or send an empty request, without a word; refused, it is a
 * 422 naming the member, and the JSON Schema says `additionalProperties: false`. A skill
 * that takes other members says so (`z.looseObject`, `.catchall(...)`), and keeps them.
 */
function checkedParams(params: Skill["params"]): z.ZodType {
  return strictParams(params);
}

/**
 * Refuses, with the message `SkillRegistry` would give, a list of skills that cannot all be
 * served (a malformed definition, a refused example, an unmarked credential, an id taken
 * twice): for start-up to check them before anything else reads them.
 */
export function checkSkills(skills: readonly Skill[]): void {
  const byId = new Map<string, Skill>();
  for (const skill of skills) {
    toCatalogSkill(skill);
    const first = byId.get(skill.id);
    if (first !== undefined) throw duplicateId(first, skill);
    byId.set(skill.id, skill);
  }
}

/**
 * Two skills with one id, naming where each was declared: an author adding a skill
 * whose id a built-in or another module has must find the other module to rename one.
 */
function duplicateId(first: Skill, second: Skill): Error {
  const prefix = `Skill ${second.id}:`;
  const rule = "each skill needs its own id";
  if (first === second) {
    const where = declaredAt(first);
    return new Error(`${prefix} listed twice${where ? ` (declared in ${where})` : ""}; list it once`);
  }
  const [one, other] = [declaredAt(first), declaredAt(second)];
  if (one === undefined || other === undefined) {
    const known = one ?? other;
    return new Error(
      `${prefix} another skill has the same id${known ? ` (one declared in ${known})` : ""}; ${rule}`,
    );
  }
  return new Error(`${prefix} declared twice, in ${one} and in ${other}; ${rule}`);
}

function skillRefused(skill: unknown, problems: readonly string[]): Error {
  const id = (skill as { id?: unknown } | null)?.id;
  // An overlong id is named by its start: the problem says how long it is.
  const name = typeof id !== "string" ? JSON.stringify(id) : id.length > 60 ? `${id.slice(0, 60)}…` : id;
  return new Error(`Skill ${name}: ${problems.join("; ")}`);
}

type Listener = (event: { type: "added" | "removed"; id: string }) => void;

/**
 * The catalog: every skill the service can run, by id. Discovery listens to it so that
 * adding or removing a skill updates the index without a rebuild.
 */
export class SkillRegistry {
  private readonly skills = new Map<string, CatalogSkill>();
  private readonly names = new SkillNames();
  private readonly listeners = new Set<Listener>();

  constructor(skills: Iterable<Skill> = []) {
    for (const skill of skills) this.add(skill);
  }

  add(skill: Skill): CatalogSkill {
    const existing = this.skills.get(skill.id);
    if (existing !== undefined) throw duplicateId(existing.skill, skill);
    const entry = toCatalogSkill(skill);
    this.skills.set(skill.id, entry);
    this.names.add(skill.id);
    for (const listener of this.listeners) listener({ type: "added", id: skill.id });
    return entry;
  }

  remove(id: string): boolean {
    const removed = this.skills.delete(id);
    if (removed) this.names.remove(id);
    if (removed) for (const listener of this.listeners) listener({ type: "removed", id });
    return removed;
  }

  get(id: string): CatalogSkill | undefined {
    return this.skills.get(id);
  }

  /**
   * The skill of `id`, or `skill_not_found` (on every surface). An agent often has a
   * skill's id in another spelling, above all its MCP tool name (`math_evaluate` for
   * `math.evaluate`): the refusal then names the id it meant.
   */
  require(id: string): CatalogSkill {
    const entry = this.skills.get(id);
    if (entry) return entry;
    const meant = this.names.meant(id).map((other) => JSON.stringify(other));
    const hint = meant.length > 0 ? `; did you mean ${meant.join(" or ")}?` : ".";
    throw new ServiceError("skill_not_found", {
      message: `No skill has the id ${JSON.stringify(id)}${hint}`,
    });
  }

  /** All skills, sorted by id, so listings and pagination are stable. */
  list(): CatalogSkill[] {
    return [...this.skills.values()].sort((a, b) => (a.skill.id < b.skill.id ? -1 : 1));
  }

  get size(): number {
    return this.skills.size;
  }

  onChange(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
