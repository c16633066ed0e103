import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { builtinSkills } from "../../skills/index.js";
import { ExecuteRequest } from "../../src/core/api-schemas.js";
import type { Skill, SkillExample } from "../../src/core/skills/skill.js";
import { makeCore } from "../core/make-core.js";

/** Where http.request's examples are sent instead of their hosts (set once the stand-in listens), and what it was asked. */
const standIn = vi.hoisted(() => ({ origin: "", asked: [] as string[] }));

// Tests send nothing off this machine: http.request's requests go to a local stand-in for
// the example's host, with the method, path, headers and body the skill built for it. The
// skill's own agent (its address policy) is bypassed: it would refuse 127.0.0.1.
vi.mock("undici", async (importOriginal) => {
  const undici = await importOriginal<typeof import("undici")>();
  const request: typeof undici.request = (url, options) => {
    const { dispatcher: _, ...rest } = options ?? {};
    const target = new URL(String(url));
    return undici.request(new URL(`${target.pathname}${target.search}`, standIn.origin), rest);
  };
  return { ...undici, request };
});

/** A stand-in for the hosts of http.request's examples: a small JSON answer saying what it was sent. */
function listenStandIn(): Promise<Server> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      standIn.asked.push(`${req.method} ${req.url}`);
      const body = JSON.stringify({
        method: req.method,
        path: req.url,
        body: Buffer.concat(chunks).toString(),
      });
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
      res.end(req.method === "HEAD" ? undefined : body);
    });
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

/**
 * Skills whose examples only wait (util.wait's go up to 20 s): run on fake timers moved
 * past the default timeout, so that a wait the timeout would cut shows as one.
 */
const WAITING = new Set(["util.wait"]);
const DEFAULT_TIMEOUT_MS = ExecuteRequest.parse({ skill_id: "x", params: {} }).timeout_ms;

/** Runs an example as an agent would send it (POST /v1/execute's defaults) on a fresh core. */
async function runExample(skill: Skill, example: SkillExample) {
  const core = await makeCore(builtinSkills);
  try {
    const key = await core.keyFor();
    const request = ExecuteRequest.parse({ skill_id: skill.id, params: example.params });
    if (!WAITING.has(skill.id)) return (await core.skillport.executions.execute(key, request)).record;
    vi.useFakeTimers({
      toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "performance"],
    });
    try {
      const running = core.skillport.executions.execute(key, request);
      await vi.advanceTimersByTimeAsync(DEFAULT_TIMEOUT_MS + 1);
      return (await running).record;
    } finally {
      vi.useRealTimers();
    }
  } finally {
    await core.cleanup();
  }
}

// Examples are shown to agents (discovery's answers, each skill's tool) as calls to copy:
// message.list's paged with a made-up message id, which a real board refuses ("No message
// with id ..."). An example states no failure, so every one must complete on a fresh core.
describe("every built-in skill's examples", () => {
  let server: Server;
  beforeAll(async () => {
    server = await listenStandIn();
    standIn.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  describe.each(builtinSkills.map((skill) => [skill.id, skill] as const))("%s", (_id, skill) => {
    it.each(skill.examples.map((example) => [example.query, example] as const))(
      "completes “%s” on a fresh core",
      async (_query, example) => {
        standIn.asked.length = 0;
        const record = await runExample(skill, example);
        expect(record.status, JSON.stringify(record.error)).toBe("completed");
        // An example of http.request reached the stand-in, not its host.
        if (skill.id === "http.request") {
          const { url, method = "GET" } = example.params as { url: string; method?: string };
          expect(standIn.asked).toEqual([`${method} ${new URL(url).pathname}`]);
        }
      },
    );
  });
});
