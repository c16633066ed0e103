/**
 * `skillport`: what a skill's author imports. The service itself is the `skillport`
 * command; the client library is `skillport/client`.
 */

export { notSensitive, type Sensitivity, sensitive } from "./core/skills/sensitive-params.js";
export type {
  ProgressUpdate,
  Skill,
  SkillAnnotations,
  SkillContext,
  SkillExample,
} from "./core/skills/skill.js";
export { defineSkill, SkillError } from "./core/skills/skill.js";
