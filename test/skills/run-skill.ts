import { expect } from "vitest";
import { checkResult } from "../../src/core/execution/checked-result.js";
import { type Skill, SkillError } from "../../src/core/skills/skill.js";
import { type FakeContext, fakeContext } from "./fake-context.js";

/**
 * Runs a skill as the executor would: params through the skill's own schema (defaults
 * applied), then the result checked against its own result schema.
 */
export async function runSkill(
  skill: Skill,
  params: Record<string, unknown>,
  ctx: FakeContext = fakeContext(),
): Promise<Record<string, unknown>> {
  const checked = checkResult(skill.result, await skill.run(skill.params.parse(params), ctx));
  if (!checked.success)
    throw new Error(`${skill.id} returned an invalid result: ${JSON.stringify(checked.issues)}`);
  return checked.result;
}

/** Asserts that running the skill fails with a SkillError whose message matches. */
export async function expectSkillError(
  skill: Skill,
  params: Record<string, unknown>,
  message: RegExp,
  ctx: FakeContext = fakeContext(),
): Promise<SkillError> {
  const error = await runSkill(skill, params, ctx).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(SkillError);
  expect((error as SkillError).message).toMatch(message);
  return error as SkillError;
}
