import { maskWorkingSecrets, maskWorkingSecretsIn } from "../keys/secret.js";
import type { SkillRegistry } from "../skills/registry.js";
import { redactedBySchema } from "../skills/sensitive-params.js";
import type { StoredExecution } from "./record.js";

/**
 * The execution without the credentials it holds: its params with what the skill's schema
 * marks sensitive masked (`sensitive`: `http.request`'s credential headers and URL query
 * values), and every working skillport secret (`maskWorkingSecrets`: its shape and checksum)
 * masked in its params, result and error message, wherever an agent put or a skill quoted
 * one. Nothing else in a result changes but what its schema marks (below): it is the
 * caller's data.
 *
 * Its result is masked as the skill's result schema marks it, where it repeats what the
 * params carry (`http.request`'s final URL and a Location header, with the url's query).
 * The ended record is one for every reader: the caller that started it gets it masked too
 * (it knows its own key), as every later read, event and MCP answer does.
 *
 * Params are needed whole only while the execution may still start: a queued record runs
 * from its stored params, in this process, another one or the next one after a restart.
 * Once it ends (`markFinished`) this is what is stored; until then, this is what the
 * dashboard shows. Replaying an idempotent request needs no params: it matches the
 * request's hash. A skill no longer in the catalog has its skillport secrets masked only.
 */
export function redactedExecution(execution: StoredExecution, registry: SkillRegistry): StoredExecution {
  const { record } = execution;
  const skill = registry.get(record.skill_id);
  const params = maskWorkingSecretsIn(
    skill ? redactedBySchema(skill.params, execution.params) : execution.params,
  );
  const marked = skill && record.result !== null ? redactedBySchema(skill.skill.result, record.result) : null;
  const result = maskWorkingSecretsIn((marked ?? record.result) as typeof record.result);
  const message = record.error ? maskWorkingSecrets(record.error.message) : undefined;
  // Most executions hold no credential: they are kept as they are, not copied.
  if (params === execution.params && result === record.result && message === record.error?.message)
    return execution;
  return {
    ...execution,
    params: params as StoredExecution["params"],
    record: {
      ...record,
      result,
      error: record.error && { ...record.error, message: message ?? "" },
    },
  };
}
