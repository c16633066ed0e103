import type { Skill } from "../src/core/skills/skill.js";
import { cryptoHash } from "./crypto-hash.js";
import { csvToJson } from "./csv-to-json.js";
import { encodingConvert } from "./encoding-convert.js";
import { httpRequest } from "./http-request.js";
import { idUuid } from "./id-uuid.js";
import { jsonQuery } from "./json-query.js";
import { jsonValidate } from "./json-validate.js";
import { mathEvaluate } from "./math-evaluate.js";
import { memoryDelete, memoryGet, memoryList, memorySet } from "./memory.js";
import { messageList, messageSend } from "./message.js";
import { textExtract } from "./text-extract.js";
import { textStats } from "./text-stats.js";
import { timeAdd } from "./time-add.js";
import { timeConvert } from "./time-convert.js";
import { timeDiff } from "./time-diff.js";
import { timeNow } from "./time-now.js";
import { unitsConvert } from "./units-convert.js";
import { utilWait } from "./util-wait.js";

/**
 * The skills shipped with skillport, in catalog order. Listed explicitly (no directory
 * scan) so that a build contains exactly these and start-up does no file-system work;
 * each module defers its heavy libraries until first run.
 */
export const builtinSkills: Skill[] = [
  messageSend,
  messageList,
  mathEvaluate,
  unitsConvert,
  utilWait,
  httpRequest,
  jsonQuery,
  jsonValidate,
  csvToJson,
  timeNow,
  timeConvert,
  timeAdd,
  timeDiff,
  textStats,
  textExtract,
  cryptoHash,
  encodingConvert,
  idUuid,
  memorySet,
  memoryGet,
  memoryDelete,
  memoryList,
];
