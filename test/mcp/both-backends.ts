import { Skillport as SkillportClient } from "../../src/client/index.js";
import type { Clock } from "../../src/core/clock.js";
import { type Logger, silentLogger } from "../../src/core/logger.js";
import type { Skill } from "../../src/core/skills/skill.js";
import { EmbeddedBackend } from "../../src/mcp/embedded-backend.js";
import { RemoteBackend } from "../../src/mcp/remote-backend.js";
import { inProcessServer } from "../http/in-process-api.js";

/**
 * One core with `skills`, served over real HTTP, and a key's two MCP backends on it:
 * embedded (the core itself) and remote (the client library through the server), for
 * tests that hold both modes to the same answers. What it opens goes onto `cleanups`.
 */
export async function bothBackends(
  skills: Skill[],
  cleanups: (() => Promise<unknown>)[],
  options: { clock?: Clock; logger?: Logger } = {},
) {
  const { core, server: http } = await inProcessServer(skills, cleanups, options);
  const address = await http.app.listen({ port: 0, host: "127.0.0.1" });
  const { secret } = await core.createKey();
  const key = await core.skillport.keys.authenticate(secret);
  const client = new SkillportClient({ apiKey: secret, baseUrl: address, retryRefusals: false });
  cleanups.push(() => client.close());
  return {
    core,
    secret,
    client,
    embedded: new EmbeddedBackend(core.skillport, async () => key),
    remote: () => RemoteBackend.connect(client, { baseUrl: address, logger: silentLogger }),
  };
}
