import { z } from "zod";
import { guardedText, type TextGuard } from "./text-guards.js";

/**
 * Refuses a text that is empty or only white space. `\s` in a JSON Schema pattern (ECMA-262
 * regular expressions) is the set `String.prototype.trim` removes, so the published schema
 * refuses exactly what trimming would leave empty.
 */
export const NON_BLANK: TextGuard = { pattern: /^\s*\S/, message: "must not be blank" };

/**
 * A text of at most `maxLength` characters with something besides white space in it, which
 * the skill receives trimmed. The bound and every guard apply to the text as sent, the
 * trimming comes last: the JSON Schema published for the param (in `/v1/skills`, discover's
 * `params` and the MCP tool's `inputSchema`) can only see the text as sent, and it is to
 * refuse what the server refuses and no more (`.trim().min(1)` took "   " the
 * schema allows and called it shorter than 1 character, and took 2,001 characters the schema
 * refuses when spaces surrounded them). Blank text is told it is blank.
 */
export function trimmedText(maxLength: number, ...guards: TextGuard[]): z.ZodString {
  return guardedText(z.string().max(maxLength), NON_BLANK, ...guards).trim();
}
