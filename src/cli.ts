#!/usr/bin/env node
import nodeModule from "node:module";
import { UsageError } from "./cli/command-options.js";
import { packageVersion } from "./package-files.js";

// Node 22.1 and later keep compiled code on disk (in the OS's temporary directory), so
// every later start skips most of the compiling; Node 20 has no such cache.
(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();

const USAGE = `skillport — find and run skills for AI agents

Usage:
  skillport serve [--port N] [--host H] [--data-dir DIR]   REST API, MCP over HTTP, dashboard
  skillport mcp [--data-dir DIR | --remote URL]            MCP over stdio (key in SKILLPORT_API_KEY)
  skillport keys create --name NAME --scope read-only|full-access
        [--plan free|pro|enterprise] [--limit-minute N --limit-day N]
        [--env production|staging|development] [--owner NAME] [--expires-at ISO] [--json]
        --expires-at 2027-01-01: the key works through that day (UTC), the dashboard's
        "Expires on"; or a date-time with Z or an offset (2027-01-01T12:00:00Z)
  skillport keys list [--json]
  skillport keys edit KEY_ID [--name NAME] [--plan free|pro|enterprise]
        [--limit-minute N --limit-day N] [--json]   same secret, new name, plan or limits
  skillport keys revoke KEY_ID
  skillport keys roll KEY_ID [--grace 24h] [--json]   new secret; the old one expires after the grace
  skillport learning list --owner OWNER [--skill SKILL_ID] [--json]
        what discovery learned from the owner's use (query -> executed skill)
  skillport learning forget --owner OWNER [--skill SKILL_ID]   forget it (one skill, or all)
  skillport --version

Every command takes --data-dir DIR (default: SKILLPORT_DATA_DIR or ./data).`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  // `skillport keys create --help` and the like: the one usage text covers every command.
  if (rest.includes("--help") || rest.includes("-h")) {
    console.log(USAGE);
    return 0;
  }
  try {
    return await run(command, rest);
  } catch (err) {
    // An unknown option or a missing value: say which, and how this command is used.
    if (err instanceof UsageError || (err as NodeJS.ErrnoException).code?.startsWith("ERR_PARSE_ARGS")) {
      console.error(`${(err as Error).message}\n\nUsage:\n${usageOf(command)}`);
      return 2;
    }
    throw err;
  }
}

/** The lines of USAGE for `command` (each with its indented continuation lines). */
function usageOf(command: string | undefined): string {
  const lines: string[] = [];
  let inCommand = false;
  for (const line of USAGE.split("\n")) {
    if (/^ {2}skillport /.test(line))
      inCommand = line.startsWith(`  skillport ${command} `) || line === `  skillport ${command}`;
    else if (!line.startsWith("        ")) inCommand = false;
    if (inCommand) lines.push(line);
  }
  return lines.length > 0 ? lines.join("\n") : USAGE;
}

async function run(command: string | undefined, rest: string[]): Promise<number> {
  switch (command) {
    // Each command loads only its own modules: an assistant spawning `skillport mcp`
    // waits for start-up, and the HTTP server is not part of it.
    case "serve":
      return (await import("./cli/serve.js")).runServe(rest);
    case "mcp":
      return (await import("./cli/mcp.js")).runMcp(rest);
    case "keys":
      // `skillport keys list | head`: a reader that stops early is no failure of ours.
      process.stdout.on("error", exitQuietlyWhenReaderLeft);
      return (await import("./cli/keys.js")).runKeysCommand(rest);
    case "learning":
      process.stdout.on("error", exitQuietlyWhenReaderLeft);
      return (await import("./cli/learning.js")).runLearningCommand(rest);
    case "--version":
    case "-v":
      console.log(packageVersion());
      return 0;
    case undefined:
    case "help":
    case "--help":
    case "-h":
      console.log(USAGE);
      return 0;
    default:
      console.error(`Unknown command ${JSON.stringify(command)}.\n\n${USAGE}`);
      return 2;
  }
}

function exitQuietlyWhenReaderLeft(err: NodeJS.ErrnoException): void {
  if (err.code !== "EPIPE") throw err;
  process.exit(0);
}

main(process.argv.slice(2)).then(
  (code) => {
    // `serve` resolves once listening; its open server keeps the process alive.
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : String(err));
    process.exitCode = 1;
  },
);
