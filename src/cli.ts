#!/usr/bin/env node
import nodeModule from "node:module";
import { UsageError } from "./cli/command-options.js";
import { COMMANDS } from "./cli/commands.js";
import { commandHelp, helpText } from "./cli/usage-text.js";
import { packageVersion } from "./package-files.js";

// Node 22.1 and later keep compiled code on disk (in the OS's temporary directory), so
// every later start skips most of the compiling; Node 20 has no such cache.
(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();

/** Built from the commands' option definitions, which parsing uses too (src/cli/command-spec.ts). */
const USAGE = helpText(COMMANDS);

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
      console.error(`${(err as Error).message}\n\nUsage:\n${usageOf(command, rest[0])}`);
      return 2;
    }
    throw err;
  }
}

/**
 * The help's lines of `command action` (`keys revoke`) when that is a command, else of all
 * of `command`'s actions (`keys`: create, list…), or the whole help for another word.
 */
function usageOf(command: string | undefined, action: string | undefined): string {
  const exact = COMMANDS.filter((spec) => spec.name === `${command} ${action}`);
  const specs = exact.length > 0 ? exact : COMMANDS.filter((spec) => spec.name.split(" ")[0] === command);
  return specs.length > 0 ? specs.flatMap(commandHelp).join("\n") : USAGE;
}

async function run(command: string | undefined, rest: string[]): Promise<number> {
  // A stderr no one reads any more (`serve 2>&1 | head`, a log pipe whose reader died, a
  // closed terminal) is no reason to stop: what would go there is dropped. Unhandled, its
  // EPIPE went to the crash handler, which ended the process or, flushing a log on the
  // same broken pipe, hung it, deaf to SIGTERM. (The log handles its own: logging.ts.)
  process.stderr.on("error", () => {});
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
