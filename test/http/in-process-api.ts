import type { InjectOptions, LightMyRequestResponse } from "fastify";
import { systemClock } from "../../src/core/clock.js";
import type { Skill } from "../../src/core/skills/skill.js";
import { buildHttpServer } from "../../src/http/server.js";
import { createLogger } from "../../src/logging.js";
import { makeCore } from "../core/make-core.js";
import { testHttpServerOptions } from "./http-server-options.js";

/**
 * The HTTP server in process (Fastify's inject, no socket), opened, on a core `makeCore`
 * makes with `skills` and `options`. What it opened is closed by the functions it pushes
 * onto `cleanups`, to be called last first.
 */
export async function inProcessServer(
  skills: Skill[],
  cleanups: (() => Promise<unknown>)[],
  options: Parameters<typeof makeCore>[1] = {},
) {
  const core = await makeCore(skills, options);
  cleanups.push(core.cleanup);
  const server = buildHttpServer(core.skillport, testHttpServerOptions(createLogger("silent")));
  cleanups.push(() => server.close());
  server.open();
  return { core, server };
}

/**
 * The REST API in process (`inProcessServer`, on the system clock) with a full-access
 * key: `request` sends one with that key.
 */
export async function inProcessApi(skills: Skill[], cleanups: (() => Promise<void>)[]) {
  const { core, server } = await inProcessServer(skills, cleanups, { clock: systemClock });
  const { secret } = await core.createKey();
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
