import type { Skill } from "../src/core/skills/skill.js";
import { mathEvaluate } from "./math-evaluate.js";
import { messageList, messageSend } from "./message.js";
import { unitsConvert } from "./units-convert.js";
import { utilWait } from "./util-wait.js";

/** The skills shipped with skillport, in catalog order. Listed explicitly so a build bundles them all. */
export const builtinSkills: Skill[] = [messageSend, messageList, mathEvaluate, unitsConvert, utilWait];
