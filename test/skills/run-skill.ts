import { expect } from "vitest";
import { checkResult } from "../../src/core/execution/checked-result.js";
import { MAX_RESULT_BYTES, resultFault } from "../../src/core/execution/result-size.js";
import { type Skill, SkillError } from "../../src/core/skills/skill.js";
import { type FakeContext, fakeContext } from "./fake-context.js";

/**
 * Runs a skill as the executor would: params through the skill's own schema (defaults
 * applied), then the result checked against its own result schema and as JSON the
 * record can hold (a bigint, a cycle or a Map fails here as it fails a real execution).
 */
export async function runSkill(
  skill: Skill,
  params: Record<string, unknown>,
  ctx: FakeContext = fakeContext(),
): Promise<Record<string, unknown>> {
  const output = await skill.run(skill.params.parse(params), ctx);
  const checked = checkResult(skill.result, output);
  if (!checked.success)
    throw new Error(`${skill.id} returned an invalid result: ${JSON.stringify(checked.issues)}`);
  const fault = resultFault(checked.result, MAX_RESULT_BYTES) ?? resultFault(output, MAX_RESULT_BYTES);
  if (fault)
    throw new Error(`${skill.id} returned a result the record cannot hold: ${JSON.stringify(fault)}`);
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
