/**
 * Find a skill for a task, run it, then follow a longer run as it happens.
 *
 *   export SKILLPORT_API_KEY=sk_...          # a full-access key (skillport keys create ...)
 *   export SKILLPORT_BASE_URL=http://127.0.0.1:8080
 *   npx tsx examples/quickstart.ts
 */
import { Skillport, SkillportError } from "skillport/client";

// The key and address come from SKILLPORT_API_KEY and SKILLPORT_BASE_URL.
const skillport = new Skillport({
  onRetry: ({ retry, delayMs, error }) =>
    console.error(`retry ${retry} in ${delayMs} ms after ${error.code}`),
});

try {
  // 1. Discover: the best skill for the task, with the JSON Schema of its params.
  const { results } = await skillport.discover({ query: "evaluate a math expression", limit: 1 });
  const best = results[0];
  if (!best) throw new Error("no skill found");
  console.log(`found ${best.skill_id} (score ${best.score})`);

  // 2. Execute synchronously: resolves with the finished record.
  const record = await skillport.execute(
    { skill_id: best.skill_id, params: { expression: "2^10 + 1" } },
    { throwOnFailure: true },
  );
  console.log(`${record.skill_id} -> ${JSON.stringify(record.result)} in ${record.latency_ms} ms`);

  // 3. A failed execution is a record, not an exception (unless throwOnFailure is set).
  const failed = await skillport.execute({ skill_id: "math.evaluate", params: { expression: "2 +* 3" } });
  console.log(`failed as expected: ${failed.error?.code}`);

  // 4. Execute asynchronously and follow its events until it ends.
  const queued = await skillport.execute({ skill_id: "util.wait", params: { ms: 1500 }, async: true });
  for await (const event of skillport.executionEvents(queued.id)) {
    if (event.type === "progress") console.log(`progress ${event.progress}/${event.total ?? "?"}`);
    else console.log(`status ${event.record.status}`);
  }
} catch (err) {
  if (!(err instanceof SkillportError)) throw err;
  // The server's code, message and request id, e.g. invalid_api_key or rate_limit_exceeded.
  console.error(`${err.code}: ${err.message}${err.requestId ? ` (request ${err.requestId})` : ""}`);
  process.exitCode = 1;
} finally {
  await skillport.close();
}
