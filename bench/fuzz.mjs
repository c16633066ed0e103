// Random input against a real server (a fresh data dir): executes of every skill with
// random or mutated-example params, discovers with odd queries, listings and reads with odd
// query strings and ids, from several clients at once. Reports what a user must never see:
// a 5xx other than the contract's 503, an error outside the contract's shape
// (`{error: {code, message}}`), an answer that is not JSON, a dropped connection, a failed
// record whose message reads like a program's fault (a TypeError, "undefined"), a run that
// brought its skill host down (out of memory, or aborted by V8), and the slowest answers (a stall of the whole process shows as many answers slow at one moment).
// One execute in five is a keyed one: a request of a small pool, each with its own
// Idempotency-Key, sent again and again by every client at once; every answer to a key
// must be that key's one execution (its record's id, or a 409 naming it), with the
// status code of its first answer.
// This is how a second-long stall of every request (an owner's learned queries re-indexed
// one by one), json.query's "not-a-number: undefined" and math.evaluate's endless range
// (`1:1e309`, which aborted the skill host) were found.
// Usage: node bench/fuzz.mjs (BENCH_DURATION seconds, default 60; FUZZ_CLIENTS, default 8;
// FUZZ_SEED for a repeatable run). Exits 1 when it found a problem.
import {
  anyValue,
  below,
  clients,
  Findings,
  listSkills,
  NUMBERS,
  paramsFor,
  pick,
  seconds,
  startSeed,
  TEXTS,
} from "./fuzz-common.mjs";
import { fmt, settings, startSkillport } from "./lib.mjs";

const LIST_QUERIES = ["limit", "status", "cursor", "skill_id"];
/** How many keyed requests the clients share. */
const KEYED_REQUESTS = 24;

/** A pool of executes, each with its own Idempotency-Key, that clients send again and again. */
function keyedRequests(skills) {
  return Array.from({ length: KEYED_REQUESTS }, (_, i) => {
    const [, path, body] = randomExecute(pick(skills));
    return { key: `fuzz-${startSeed}-${i}`, path, body, id: undefined, status: undefined };
  });
}

/**
 * What is wrong with an answer to a keyed request, given the answers to its key before
 * (remembered on `keyed`): undefined when it is that key's one execution, as it stands.
 */
function problemWithKeyed(keyed, status, text) {
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined; // said by problemWith
  }
  if (status === 409) {
    if (body.error?.code !== "idempotency_in_progress") return `a 409 ${body.error?.code}`;
    const named = body.error.execution_id;
    if (keyed.id !== undefined && named !== keyed.id) return "a 409 naming another execution than its key's";
    keyed.id ??= named;
    return undefined;
  }
  if (status !== 200 && status !== 202) return undefined;
  if (keyed.id !== undefined && body.id !== keyed.id)
    return "an Idempotency-Key answered with a second execution";
  if (keyed.status !== undefined && status !== keyed.status)
    return `a replay answered ${status}, its first ${keyed.status}`;
  keyed.id = body.id;
  keyed.status = status;
  return undefined;
}

/** A random execute of `skill`: [method, path, body]. */
function randomExecute(skill) {
  const body = {
    skill_id: below(20) ? skill.skill_id : anyValue(),
    params: below(15) ? paramsFor(skill) : anyValue(),
  };
  // util.wait runs for as long as it is asked: async, so that it holds no client.
  if (skill.skill_id === "util.wait") body.async = true;
  else if (below(4) === 0) body.async = below(2) === 0;
  if (below(4) === 0) body.timeout_ms = pick([...NUMBERS, 1, 100, 5_000]);
  return ["POST", "/v1/execute", body];
}

/** One random request: [method, path, body, keyed request or undefined]. */
function randomRequest(skills, keyed) {
  const skill = pick(skills);
  const choice = below(10);
  if (choice < 6) {
    if (below(5) === 0) {
      const request = pick(keyed);
      return ["POST", request.path, request.body, request];
    }
    return randomExecute(skill);
  }
  if (choice < 8) {
    const body = { query: below(8) ? `${pick(TEXTS)} ${pick(TEXTS)}` : anyValue() };
    if (below(3) === 0) body.limit = anyValue();
    return ["POST", "/v1/discover", body];
  }
  const value = encodeURIComponent(JSON.stringify(anyValue()).replace(/^"|"$/g, "").toWellFormed?.() ?? "x");
  return pick([
    ["GET", `/v1/executions?${pick(LIST_QUERIES)}=${value}`],
    ["GET", `/v1/skills?cursor=${value}`],
    ["GET", `/v1/skills/${value}`],
    ["GET", `/v1/executions/${value}`],
  ]);
}

/** What is wrong with an answer, or undefined. */
function problemWith(status, text, path) {
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    return "an answer that is not JSON";
  }
  if (status >= 500 && !(status === 503 && body.error?.code === "service_unavailable")) return `a ${status}`;
  if (status >= 400 && !(typeof body.error?.code === "string" && typeof body.error?.message === "string")) {
    return `a ${status} outside the error shape`;
  }
  const message = body.error?.message ?? "";
  if (
    path === "/v1/execute" &&
    /TypeError|is not a function|Cannot read prop|: undefined\b|\[object /.test(message)
  ) {
    return "a failed record whose message reads like a program's fault";
  }
  // The skill host died under the run (out of memory, or V8 aborted it): contained, but it
  // fails every run on that host, so an input that does it is worth a cap of its own.
  if (path === "/v1/execute" && /the process running it failed/.test(message)) {
    return "a run that brought its skill host down";
  }
  return undefined;
}

const sp = await startSkillport();
try {
  const skills = await listSkills(sp);
  const keyed = keyedRequests(skills);
  const statuses = {};
  const keyedStatuses = {}; // the answers to keyed requests, by status
  const findings = new Findings();
  const times = { "POST /v1/discover": [], "POST /v1/execute": [] }; // ms, to print percentiles
  const rankings = {}; // ranking.semantic of the discovers answered: how often the model was busy
  const end = findings.started + seconds * 1000;
  let sent = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < end) {
        const [method, path, body, keyedRequest] = randomRequest(skills, keyed);
        const text = body === undefined ? undefined : JSON.stringify(body);
        const at = performance.now();
        let problem;
        let status = "dropped";
        try {
          const res = await fetch(sp.url(path), {
            method,
            headers: keyedRequest ? { ...sp.headers, "idempotency-key": keyedRequest.key } : sp.headers,
            body: text,
            signal: AbortSignal.timeout(60_000),
          });
          status = res.status;
          const answer = await res.text();
          problem =
            problemWith(res.status, answer, path.split("?")[0]) ??
            (keyedRequest && problemWithKeyed(keyedRequest, res.status, answer));
          if (path === "/v1/discover" && res.status === 200) {
            const semantic = JSON.parse(answer).ranking?.semantic;
            rankings[semantic] = (rankings[semantic] ?? 0) + 1;
          }
        } catch (err) {
          problem = `no answer (${err.cause?.code ?? err.name})`;
        }
        const ms = performance.now() - at;
        sent += 1;
        statuses[status] = (statuses[status] ?? 0) + 1;
        if (keyedRequest) keyedStatuses[status] = (keyedStatuses[status] ?? 0) + 1;
        const route = `${method} ${path.startsWith("/v1/execute") || path.startsWith("/v1/discover") ? path : path.replace(/\/[^/?]*(\?.*)?$/, "/…")}`;
        findings.problem(problem, route, text?.slice(0, 300));
        times[route]?.push(ms);
        findings.answered(ms, at, route, text);
      }
    }),
  );

  console.log(
    `fuzz: ${sent} requests in ${seconds} s from ${clients} clients (FUZZ_SEED=${startSeed}); ${settings.cores} cores shared with the server`,
  );
  console.log(`statuses: ${JSON.stringify(statuses)}`);
  const replayedKeys = keyed.filter((request) => request.id !== undefined).length;
  console.log(
    `keyed executes (${KEYED_REQUESTS} Idempotency-Keys, ${replayedKeys} of them ran): ${JSON.stringify(keyedStatuses)}`,
  );
  for (const [route, list] of Object.entries(times)) {
    list.sort((a, b) => a - b);
    const at = (q) => fmt(list[Math.min(list.length - 1, Math.floor(q * list.length))] ?? 0, 1);
    console.log(
      `${route}: ${list.length} answers, p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, p99.9 ${at(0.999)} ms`,
    );
  }
  console.log(`discovers answered by ranking.semantic: ${JSON.stringify(rankings)}`);
  findings.print("slowest answers (many at one moment: the whole process stalled):");
} finally {
  await sp.close();
}
