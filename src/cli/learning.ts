import { queryWithoutSecrets } from "../core/discovery/query-secrets.js";
import { DEFAULT_LEARNED_QUERY_CAPS } from "../core/discovery/usage-learning.js";
import { silentLogger } from "../core/logger.js";
import { openStore } from "../store/open-store.js";
import { parseCommandArgs } from "./command-options.js";
import { usageLine } from "./command-spec.js";
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
  // An unknown action is said below with both usages; its options are the same.
  const spec =
    action === "forget"
      ? LEARNING_FORGET
      : action === "list"
        ? LEARNING_LIST
        : { ...LEARNING_LIST, name: "learning" };
  const { values } = parseCommandArgs(spec, rest);
  const owner = values.owner;
  if ((action !== "list" && action !== "forget") || !owner) {
    const usage = [LEARNING_LIST, LEARNING_FORGET].map((each) => `Usage: ${usageLine(each)}`).join("\n");
    console.error(`${usage}\n(each key's owner is in skillport keys list)`);
    return 2;
  }
  const opened = commandStore(`skillport learning ${action}`, values["data-dir"]);
  if (!opened) return 1;
  const where = opened.name;
  const store = await openStore(opened.config, silentLogger, { limits: false });
  try {
    if (action === "forget") {
      const forgotten = await store.learnedQueries.forget(owner, values.skill);
      if (values.json) console.log(JSON.stringify({ owner, skill_id: values.skill ?? null, forgotten }));
      else
        console.log(
          `Forgot ${forgotten} learned ${forgotten === 1 ? "query" : "queries"} of ${owner} in ${where}.`,
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
    else if (learned.length === 0) console.log(`Nothing learned for ${owner} in ${where}.`);
    else {
      console.log(`Learned for ${owner} in ${where} (skill, count, last time, query):`);
      for (const entry of learned) {
        console.log(`${entry.skill_id}\t${entry.count}\t${entry.last_at}\t${JSON.stringify(entry.query)}`);
      }
    }
    return 0;
  } finally {
    await store.close();
  }
}
