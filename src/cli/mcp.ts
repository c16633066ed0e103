import { parseArgs } from "node:util";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createSkillport } from "../bootstrap.js";
import { type Config, loadConfig } from "../config.js";
import { ServiceError } from "../core/errors.js";
import type { Logger } from "../core/logger.js";
import { createLogger } from "../logging.js";
import type { SkillportBackend } from "../mcp/backend.js";
import { EmbeddedBackend } from "../mcp/embedded-backend.js";
import { createMcpServer } from "../mcp/mcp-server.js";
import { packageVersion } from "../version.js";

const CREATE_KEY_HINT =
  "Create one with `skillport keys create --name NAME --scope full-access` (in a checkout: `npm run -s cli -- keys create …`) and set it in SKILLPORT_API_KEY.";

/** A backend ready to answer tool calls, or why the key does not work. */
type Opened = { backend: SkillportBackend; close: () => Promise<void> } | { refused: string };

/**
 * `skillport mcp`: MCP over stdio for assistants that spawn a process. stdout carries
 * protocol messages only; logs go to stderr. The key comes from `SKILLPORT_API_KEY`,
 * and without a working one the process ends at once, saying how to create one.
 */
export async function runMcp(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { "data-dir": { type: "string" }, remote: { type: "string" } },
  });
  const secret = process.env.SKILLPORT_API_KEY?.trim();
  if (!secret) {
    console.error(`skillport mcp: SKILLPORT_API_KEY is not set. ${CREATE_KEY_HINT}`);
    return 1;
  }
  const config = loadConfig({
    ...process.env,
    ...(values["data-dir"] !== undefined && { SKILLPORT_DATA_DIR: values["data-dir"] }),
  });
  const logger = createLogger(config.logLevel, 2);
  const opened = await openEmbedded(config, secret, logger);
  if ("refused" in opened) {
    console.error(`skillport mcp: SKILLPORT_API_KEY does not work (${opened.refused}). ${CREATE_KEY_HINT}`);
    return 1;
  }
  await serveStdio(opened, config, logger);
  return 0;
}

/** The core in this process, on the configured store, for the key of `secret`. */
async function openEmbedded(config: Config, secret: string, logger: Logger): Promise<Opened> {
  const skillport = createSkillport(config, logger);
  try {
    await skillport.keys.authenticate(secret);
  } catch (err) {
    await skillport.close();
    if (err instanceof ServiceError) return { refused: `${err.code}: ${err.message}` };
    throw err;
  }
  await skillport.start();
  return {
    // Authenticated on every call, so that a revocation stops this process's key at once.
    backend: new EmbeddedBackend(skillport, () => skillport.keys.authenticate(secret)),
    close: async () => {
      await skillport.stop(config.shutdownTimeoutMs);
      await skillport.close();
    },
  };
}

/** Serves MCP on stdin/stdout until the client closes stdin or a signal arrives. */
async function serveStdio(
  { backend, close }: Extract<Opened, { backend: SkillportBackend }>,
  config: Config,
  logger: ReturnType<typeof createLogger>,
): Promise<void> {
  const { server, drained } = createMcpServer(backend, { ...config.mcp, version: packageVersion(), logger });
  let stopping = false;
  const stop = async (reason: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ reason }, "mcp: stopping");
    // Calls in progress finish (until the shutdown deadline) and are answered first.
    await Promise.race([drained(), new Promise((resolve) => setTimeout(resolve, config.shutdownTimeoutMs))]);
    await server.close();
    await close();
    logger.flush();
    process.exit(0);
  };
  const stopOn = (reason: string) => () => {
    stop(reason).catch((err: unknown) => {
      logger.error({ err }, "mcp: shutdown failed");
      process.exit(1);
    });
  };
  process.stdin.once("end", stopOn("stdin closed"));
  process.once("SIGTERM", stopOn("SIGTERM"));
  process.once("SIGINT", stopOn("SIGINT"));
  await server.connect(new StdioServerTransport());
  logger.info({ version: packageVersion() }, "mcp: serving on stdio");
}
