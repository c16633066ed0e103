import type { InjectOptions, LightMyRequestResponse } from "fastify";
import { systemClock } from "../../src/core/clock.js";
import type { Skill } from "../../src/core/skills/skill.js";
import { buildHttpServer } from "../../src/http/server.js";
import { createLogger } from "../../src/logging.js";
import { makeCore } from "../core/make-core.js";
import { testHttpServerOptions } from "./http-server-options.js";

/**
 * The REST API in process, on a core with `skills` and a full-access key: `request` sends
 * one with that key (Fastify's inject, no socket). What it opened is closed by the
 * functions it pushes onto `cleanups`, to be called last first.
 */
export async function inProcessApi(skills: Skill[], cleanups: (() => Promise<void>)[]) {
  const core = await makeCore(skills, { clock: systemClock });
  cleanups.push(core.cleanup);
  const { secret } = await core.createKey();
  const server = buildHttpServer(core.skillport, testHttpServerOptions(createLogger("silent")));
  cleanups.push(() => server.close());
  server.open();
  const request = (
    method: "GET" | "POST",
    url: string,
    payload?: InjectOptions["payload"],
    headers: Record<string, string> = {},
  ): Promise<LightMyRequestResponse> =>
    server.app.inject({
      method,
      url,
      ...(payload !== undefined && { payload }),
      headers: { authorization: `Bearer ${secret}`, ...headers },
    });
  return { core, secret, request, server };
}
