import { queryWithoutSecrets } from "../core/discovery/query-secrets.js";
import { DEFAULT_LEARNED_QUERY_CAPS } from "../core/discovery/usage-learning.js";
import { KeyOwner } from "../core/keys/key-service.js";
import { looksLikeSecret } from "../core/keys/secret.js";
import { silentLogger } from "../core/logger.js";
import { meantNames } from "../core/member-names.js";
import type { Store } from "../core/ports.js";
import { safeParseInWords } from "../core/validation.js";
import { serverSkills } from "../skill-sources.js";
import { openStore } from "../store/open-store.js";
import { parseCommandArgs, UsageError } from "./command-options.js";
import { LEARNING_FORGET, LEARNING_LIST } from "./commands.js";
import { commandStore } from "./store-command.js";

/**
 * `skillport learning list|forget`: what discovery learned from an owner's use (README,
 * "Discovery learns from use"), and a way to undo it. One careless or hostile key of an
 * owner can teach that owner's discovery wrong pairs; the operator sees them here and
 * forgets them, for one skill or all. Running servers drop what they hold in memory
 * within a minute, as they pick up new learning.
 */
export async function runLearningCommand(args: string[]): Promise<number> {
  const [action, ...rest] = args;
  if (action !== "list" && action !== "forget") {
    // `skillport learning --owner x`: an option where the action goes.
    if (action === undefined || action.startsWith("-")) {
      throw new UsageError("skillport learning needs an action first: list or forget.");
    }
    // Never echoed whole: it may be anything pasted, a secret too.
    const shown = looksLikeSecret(action) ? "what looks like a key's secret" : JSON.stringify(action);
    throw new UsageError(`skillport learning has no action ${shown}: its actions are list and forget.`);
  }
  const spec = action === "forget" ? LEARNING_FORGET : LEARNING_LIST;
  const { values } = parseCommandArgs(spec, rest);
  if (!values.owner) {
    throw new UsageError(`skillport ${spec.name} needs --owner (${spec.options.owner.means}).`);
  }
  // Held to the rule keys are created with: an owner no key can have has learned nothing.
  const checked = safeParseInWords(KeyOwner, values.owner);
  if (!checked.success) {
    throw new UsageError(
      `skillport ${spec.name}: --owner: ${checked.error.issues[0]?.message ?? "is not valid"}`,
    );
  }
  const owner = checked.data;
  const about = values.skill === undefined ? "" : ` about ${values.skill}`;
  const opened = commandStore(spec, values);
  if (!opened) return 1;
  const where = opened.name;
  const store = await openStore(opened.config, silentLogger, { limits: false });
  try {
    if (values.skill !== undefined)
      await noteUnknownSkill(`skillport ${spec.name}`, owner, values.skill, store);
    if (action === "forget") {
      const forgotten = await store.learnedQueries.forget(owner, values.skill);
      if (values.json) console.log(JSON.stringify({ owner, skill_id: values.skill ?? null, forgotten }));
      else
        console.log(
          `Forgot ${forgotten} learned ${forgotten === 1 ? "query" : "queries"} of ${owner}${about} in ${where}.`,
        );
      return 0;
    }
    const learned = (await store.learnedQueries.list(owner, DEFAULT_LEARNED_QUERY_CAPS.perOwner))
      .filter((entry) => values.skill === undefined || entry.skillId === values.skill)
      .map((entry) => ({
        skill_id: entry.skillId,
        // One learned before queries with secrets were kept out may hold one: shown masked,
        // so that the operator can see it and forget it.
        query: queryWithoutSecrets(entry.query),
        count: entry.count,
        last_at: new Date(entry.lastAt).toISOString(),
      }));
    if (values.json) console.log(JSON.stringify(learned));
    else if (learned.length === 0) console.log(`Nothing learned for ${owner}${about} in ${where}.`);
    else {
      console.log(`Learned for ${owner}${about} in ${where} (skill, count, last execution, query):`);
      for (const entry of learned) {
        console.log(`${entry.skill_id}\t${entry.count}\t${entry.last_at}\t${JSON.stringify(entry.query)}`);
      }
    }
    return 0;
  } finally {
    await store.close();
  }
}

/**
 * A `--skill` that names no skill, and nothing the owner's use taught, is most likely a
 * typo: "Nothing learned" or "Forgot 0" alone reads as if that skill had learned nothing.
 * Said on stderr, with the ids it may have meant; the answer and exit code stay as they
 * are (a skill since removed from the catalog may still have learned queries to forget).
 */
async function noteUnknownSkill(
  command: string,
  owner: string,
  skillId: string,
  store: Store,
): Promise<void> {
  if (looksLikeSecret(skillId)) {
    console.error(`${command}: note: --skill holds what looks like a key's secret, not a skill's id.`);
    return;
  }
  const catalog = serverSkills().map((skill) => skill.id);
  if (catalog.includes(skillId)) return;
  const learned = await store.learnedQueries.list(owner, DEFAULT_LEARNED_QUERY_CAPS.perOwner);
  const taught = learned.map((entry) => entry.skillId);
  if (taught.includes(skillId)) return;
  const meant = meantNames(skillId, new Set([...catalog, ...taught])).map((id) => JSON.stringify(id));
  const hint = meant.length > 0 ? `; did you mean ${meant.join(" or ")}?` : ".";
  console.error(
    `${command}: note: no skill has the id ${JSON.stringify(skillId)}, and ${owner}'s use taught nothing about it${hint}`,
  );
}
