import { maskWorkingSecrets, maskWorkingSecretsIn } from "../keys/secret.js";
import type { SkillRegistry } from "../skills/registry.js";
import { redactedParams } from "../skills/sensitive-params.js";
import type { StoredExecution } from "./record.js";

/**
 * The execution without the credentials it holds: its params with what the skill's schema
 * marks sensitive masked (`sensitive`: `http.request`'s credential headers and URL query
 * values), and every working skillport secret (`maskWorkingSecrets`: its shape and checksum)
 * masked in its params, result and error message, wherever an agent put or a skill quoted
 * one. Nothing else in a result changes: it is the caller's data.
 *
 * Params are needed whole only while the execution may still start: a queued record runs
 * from its stored params, in this process, another one or the next one after a restart.
 * Once it ends (`markFinished`) this is what is stored; until then, this is what the
 * dashboard shows. Replaying an idempotent request needs no params: it matches the
 * request's hash. A skill no longer in the catalog has its skillport secrets masked only.
 */
export function redactedExecution(execution: StoredExecution, registry: SkillRegistry): StoredExecution {
  const { record } = execution;
  const schema = registry.get(record.skill_id)?.params;
  const params = maskWorkingSecretsIn(schema ? redactedParams(schema, execution.params) : execution.params);
  const result = maskWorkingSecretsIn(record.result);
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
