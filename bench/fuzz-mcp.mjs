// Random input against a real server's MCP surface (`/mcp`, a fresh data dir): several SDK
// clients, each its own session, call every tool (per-skill tools, execute_skill,
// discover_skills, get_execution) with random or mutated-example arguments, and unknown
// tools; raw JSON-RPC messages (malformed JSON, odd methods, ids and params, batches) go to
// a session besides, and raw lines to a `skillport mcp` on the same data dir. Reports what an assistant must never see: a 5xx, a tool call answered
// other than by a result with content (or, for a protocol fault, a JSON-RPC error), an error
// result without a message an agent can act on, a message that reads like a program's fault,
// a run that brought its skill host down, a dropped session; and the slowest calls.
// Usage: node bench/fuzz-mcp.mjs (BENCH_DURATION seconds, default 60; FUZZ_CLIENTS, default
// 8; FUZZ_SEED for a repeatable run). Exits 1 when it found a problem.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
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
import { CLI, LOG_LEVEL, settings, startSkillport } from "./lib.mjs";

const SKILL_ID_META = "skillport/skill_id";
/** Words of a message that say the program failed, not the input: never for an agent. */
const FAULT = /TypeError|is not a function|Cannot read prop|: undefined\b|\[object /;

/** Arguments for one random tool call: [tool name, arguments]. */
function randomCall(tools, skills) {
  const choice = below(20);
  if (choice === 0) return [pick([...TEXTS.slice(0, 12), "execute-skill", "math.evaluate"]), anyValue()];
  if (choice < 11) {
    const tool = pick(tools.filter((t) => t._meta?.[SKILL_ID_META]));
    const skill = skills.get(tool._meta[SKILL_ID_META]);
    const args = below(15) ? paramsFor(skill) : anyValue();
    // util.wait waits as long as asked (up to the timeout): short, so that it holds no session.
    if (skill.skill_id === "util.wait" && args && typeof args === "object")
      args.ms = pick([0, 1, 100, -1, "1"]);
    return [tool.name, args];
  }
  if (choice < 14) {
    const skill = pick([...skills.values()]);
    const args = {
      skill_id: below(15) ? skill.skill_id : anyValue(),
      params: below(10) ? paramsFor(skill) : anyValue(),
    };
    // util.wait runs for as long as it is asked: a short wait_ms hands back its running record.
    if (skill.skill_id === "util.wait" || below(3) === 0) args.wait_ms = pick([...NUMBERS, 0, 1, 100]);
    if (below(4) === 0) args.timeout_ms = pick([...NUMBERS, 1, 100, 5_000]);
    if (below(6) === 0) args.idempotency_key = pick(TEXTS);
    return ["execute_skill", args];
  }
  if (choice < 18) {
    const args = { query: below(8) ? `${pick(TEXTS)} ${pick(TEXTS)}` : anyValue() };
    if (below(3) === 0) args.limit = anyValue();
    return ["discover_skills", args];
  }
  const args = { execution_id: below(2) ? pick(TEXTS) : anyValue() };
  if (below(3) === 0) args.wait_ms = anyValue();
  return ["get_execution", args];
}

/** What is wrong with a tool call's outcome, or undefined. */
function problemWithCall(outcome) {
  if (outcome.error) {
    const err = outcome.error;
    // A protocol fault (unknown tool, arguments that are not an object) is a JSON-RPC error.
    if (err instanceof McpError) {
      if (err.code === -32603) return "an internal error (-32603)";
      return FAULT.test(err.message) ? "a JSON-RPC error that reads like a program's fault" : undefined;
    }
    return `no answer (${err.cause?.code ?? err.name}: ${err.message.slice(0, 80)})`;
  }
  const { result } = outcome;
  if (!Array.isArray(result.content)) return "a result without content";
  const text = result.content.map((part) => part.text ?? "").join("\n");
  if (result.isError) {
    if (text.trim().length < 10) return "an error result without a message";
    if (FAULT.test(text)) return "an error result that reads like a program's fault";
    if (/the process running it failed/.test(text)) return "a run that brought its skill host down";
  }
  return undefined;
}

/** Raw JSON-RPC bodies, valid and not: what a client written by hand might send. */
function randomMessage() {
  const id = pick([1, 0, -1, "x", null, 2 ** 53, 1.5, {}, [], true]);
  const method = pick([
    "tools/call",
    "tools/list",
    "ping",
    "resources/list",
    "prompts/get",
    "nope",
    "",
    anyValue(),
  ]);
  const params = below(3)
    ? { name: pick(["math_evaluate", "discover_skills", pick(TEXTS)]), arguments: anyValue() }
    : anyValue();
  const message = below(6) ? { jsonrpc: pick(["2.0", "2.0", "1.0", 2]), id, method, params } : anyValue();
  const body =
    below(10) === 0
      ? pick(["{", "[]", "null", "", "\u0000", '{"jsonrpc":"2.0"', "[1,2]"])
      : JSON.stringify(below(8) ? message : [message, message]);
  return body ?? "null";
}

/** What is wrong with a JSON-RPC answer (or a batch of them), over `/mcp` or stdio, or undefined. */
function problemWithAnswers(answer) {
  for (const message of [answer].flat()) {
    if (message?.error?.code === -32603) return "an internal error (-32603)";
    if (FAULT.test(message?.error?.message ?? ""))
      return "a JSON-RPC error that reads like a program's fault";
  }
  return undefined;
}

/** What is wrong with the answer to a raw message, or undefined. */
function problemWithRaw(status, text) {
  if (status >= 500) return `a ${status}`;
  if (text === "" || status === 202) return undefined; // a notification or response accepted
  const data =
    text.startsWith("event:") || text.startsWith("data:") || text.startsWith("id:")
      ? text
          .split("\n")
          .filter((line) => line.startsWith("data:"))
          .map((line) => line.slice(5))
          .join("")
      : text;
  try {
    return problemWithAnswers(JSON.parse(data));
  } catch {
    return "an answer that is not JSON";
  }
}

async function connect(sp) {
  const client = new Client({ name: "skillport-fuzz", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(sp.url("/mcp")), {
    requestInit: { headers: { authorization: sp.headers.authorization } },
  });
  await client.connect(transport);
  return { client, transport };
}

const sp = await startSkillport();
try {
  const skills = new Map((await listSkills(sp)).map((skill) => [skill.skill_id, skill]));
  const findings = new Findings();
  const outcomes = {};
  const end = findings.started + seconds * 1000;
  let calls = 0;
  let raw = 0;

  const caller = async () => {
    const { client, transport } = await connect(sp);
    const { tools } = await client.listTools();
    try {
      while (performance.now() < end) {
        const [name, args] = randomCall(tools, skills);
        const at = performance.now();
        let outcome;
        try {
          outcome = {
            result: await client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 }),
          };
        } catch (error) {
          outcome = { error };
        }
        const ms = performance.now() - at;
        calls += 1;
        const kind = outcome.error
          ? `error ${outcome.error.code ?? outcome.error.name}`
          : outcome.result.isError
            ? "isError"
            : "ok";
        outcomes[kind] = (outcomes[kind] ?? 0) + 1;
        const example = JSON.stringify({ name, arguments: args })?.slice(0, 300);
        findings.problem(
          problemWithCall(outcome),
          name,
          `${example} -> ${JSON.stringify(outcome.result ?? outcome.error?.message)?.slice(0, 300)}`,
        );
        findings.answered(ms, at, name, example);
      }
    } finally {
      await transport.terminateSession().catch(() => {});
      await client.close();
    }
  };

  // Raw messages go to a session of their own, opened by hand as a client would.
  const rawSender = async () => {
    const headers = { ...sp.headers, accept: "application/json, text/event-stream" };
    const init = await fetch(sp.url("/mcp"), {
      method: "POST",
      headers,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "fuzz-raw", version: "1" },
        },
      }),
    });
    await init.text();
    const session = init.headers.get("mcp-session-id");
    const sessionHeaders = { ...headers, "mcp-session-id": session, "mcp-protocol-version": "2025-06-18" };
    await fetch(sp.url("/mcp"), {
      method: "POST",
      headers: sessionHeaders,
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    });
    while (performance.now() < end) {
      const body = randomMessage();
      let status = "dropped";
      let text = "";
      try {
        const res = await fetch(sp.url("/mcp"), {
          method: "POST",
          headers: sessionHeaders,
          body,
          signal: AbortSignal.timeout(60_000),
        });
        status = res.status;
        text = await res.text();
        findings.problem(
          problemWithRaw(status, text),
          "raw /mcp",
          `${body.slice(0, 200)} -> ${status} ${text.slice(0, 200)}`,
        );
      } catch (err) {
        findings.problem(`no answer (${err.cause?.code ?? err.name})`, "raw /mcp", body.slice(0, 200));
      }
      raw += 1;
      outcomes[`raw ${status}`] = (outcomes[`raw ${status}`] ?? 0) + 1;
    }
  };

  // Raw lines to `skillport mcp` on the server's data dir, as an assistant's process: each
  // request must be answered (a result or a JSON-RPC error), every line out must be JSON,
  // and nothing but the service's own log lines may reach stderr (a Node warning did).
  const stdioSender = async () => {
    const secret = sp.headers.authorization.slice("Bearer ".length);
    const child = spawn(process.execPath, [CLI, "mcp"], {
      env: {
        ...process.env,
        SKILLPORT_API_KEY: secret,
        SKILLPORT_DATA_DIR: sp.dataDir,
        SKILLPORT_LOG_LEVEL: LOG_LEVEL,
      },
    });
    createInterface({ input: child.stderr }).on("line", (line) => {
      if (!line.startsWith("{"))
        findings.problem("a line on stderr that is not the service's log", "stdio", line.slice(0, 200));
    });
    const waiting = new Map(); // id -> the line sent
    createInterface({ input: child.stdout }).on("line", (line) => {
      let message;
      try {
        message = JSON.parse(line);
      } catch {
        return findings.problem("a line on stdout that is not JSON", "stdio", line.slice(0, 200));
      }
      for (const answer of [message].flat()) waiting.delete(JSON.stringify(answer?.id));
      findings.problem(problemWithAnswers(message), "stdio", line.slice(0, 300));
    });
    const send = (line) => child.stdin.write(`${line}\n`);
    send(
      JSON.stringify({
        jsonrpc: "2.0",
        id: "init",
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "fuzz-stdio", version: "1" },
        },
      }),
    );
    send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    let n = 0;
    while (performance.now() < end && child.exitCode === null) {
      const id = `s${n++}`;
      const line = below(4)
        ? JSON.stringify({
            jsonrpc: "2.0",
            id,
            method: "tools/call",
            params: {
              name: pick([
                "math_evaluate",
                "discover_skills",
                "execute_skill",
                "get_execution",
                "json_query",
                pick(TEXTS),
              ]),
              arguments: below(5)
                ? anyValue()
                : {
                    expression: pick(TEXTS),
                    query: pick(TEXTS),
                    skill_id: pick(["math.evaluate", pick(TEXTS)]),
                    params: anyValue(),
                  },
            },
          })
        : randomMessage();
      if (line.includes(`"id":"${id}"`) && !line.startsWith("[")) waiting.set(JSON.stringify(id), line);
      send(line);
      raw += 1;
      // A few at a time: the answers, not the pipe, set the pace.
      if (n % 20 === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const deadline = performance.now() + 30_000;
    while (waiting.size > 0 && performance.now() < deadline && child.exitCode === null)
      await new Promise((resolve) => setTimeout(resolve, 100));
    if (child.exitCode !== null) findings.problem(`skillport mcp exited (${child.exitCode})`, "stdio", "");
    for (const line of [...waiting.values()].slice(0, 3))
      findings.problem("a request never answered", "stdio", line.slice(0, 200));
    child.kill();
  };

  await Promise.all([...Array.from({ length: clients }, caller), rawSender(), stdioSender()]);
  const alive = await fetch(sp.url("/healthz")).then(
    (res) => res.status,
    () => "no answer",
  );
  if (alive !== 200)
    findings.problem(`the server answered /healthz with ${alive} after the run`, "server", "");

  console.log(
    `fuzz-mcp: ${calls} tool calls from ${clients} sessions and ${raw} raw messages in ${seconds} s (FUZZ_SEED=${startSeed}); ${settings.cores} cores shared with the server`,
  );
  console.log(`outcomes: ${JSON.stringify(outcomes)}`);
  findings.print("slowest calls:");
} finally {
  await sp.close();
}
