import { maskWorkingSecrets, maskWorkingSecretsIn } from "../keys/secret.js";
import type { SkillRegistry } from "../skills/registry.js";
import { redactedBySchema } from "../skills/sensitive-params.js";
import type { StoredExecution } from "./record.js";

declare const paramsKept: unique symbol;

/**
 * An execution whose params are as `withParamsKept` made them: the only kind a record that
 * is not `queued` is stored, answered or shared as. A mark for the type checker alone (no
 * such member exists), so that nothing stores a running or terminal record it did not
 * mask, and nothing masks the same params twice.
 */
export type KeptExecution = StoredExecution & { readonly [paramsKept]: true };

/**
 * The execution with its params as every record that is not `queued` keeps them: what
 * the skill's params schema marks sensitive masked (`sensitive`: `http.request`'s
 * credential headers and URL query values), and every working skillport secret
 * (`maskWorkingSecrets`: its shape and checksum) wherever an agent put one. A skill no
 * longer in the catalog has its skillport secrets masked only.
 *
 * Params are needed whole only while the execution may still start: a queued record runs
 * from its stored params, in this process, another one or the next one after a restart. A
 * running record is never run again from its params (a run cut off ends
 * `execution_interrupted`), so it is stored this way from the moment it runs, as the
 * terminal record is; the run itself keeps the whole params in memory. Replaying an
 * idempotent request needs no params: it matches the request's hash.
 */
export function withParamsKept(execution: StoredExecution, registry: SkillRegistry): KeptExecution {
  const skill = registry.get(execution.record.skill_id);
  const params = maskWorkingSecretsIn(
    skill ? redactedBySchema(skill.params, execution.params) : execution.params,
  );
  // Most executions hold no credential: they are kept as they are, not copied.
  return (params === execution.params ? execution : { ...execution, params }) as KeptExecution;
}

/**
 * The execution with its result and error message masked as its record is kept once it
 * ended (its params are already): the result as the skill's result schema marks it, where
 * it repeats what the params carry (`http.request`'s final URL and a Location header, with
 * the url's query), and every working skillport secret (`maskWorkingSecrets`) in the
 * result and the error message, wherever a skill quoted one. Nothing else in a result
 * changes: it is the caller's data.
 *
 * The ended record is one for every reader: the caller that started it gets it masked too
 * (it knows its own key), as every later read, event and MCP answer does.
 */
export function withResultKept(execution: KeptExecution, registry: SkillRegistry): KeptExecution {
  const { record } = execution;
  const skill = registry.get(record.skill_id);
  const marked = skill && record.result !== null ? redactedBySchema(skill.skill.result, record.result) : null;
  const result = maskWorkingSecretsIn((marked ?? record.result) as typeof record.result);
  const message = record.error ? maskWorkingSecrets(record.error.message) : undefined;
  if (result === record.result && message === record.error?.message) return execution;
  return {
    ...execution,
    record: {
      ...record,
      result,
      error: record.error && { ...record.error, message: message ?? "" },
    },
  };
}

/**
 * The execution without the credentials it holds, in its params, result and error
 * message: what the dashboard shows of every record, whatever its status (a queued one's
 * params are stored whole, and a record stored by an earlier version may hold them).
 */
export function redactedExecution(execution: StoredExecution, registry: SkillRegistry): StoredExecution {
  return withResultKept(withParamsKept(execution, registry), registry);
}
