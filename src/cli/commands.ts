import { type CommandSpec, checkedSpec } from "./command-spec.js";
import { KEYS_COMMANDS } from "./keys-args.js";

/**
 * The options of `serve`, `mcp` and `learning`, which parse them and whose usage the help
 * shows (command-spec.ts). Here rather than in the commands' own modules: `skillport --help`
 * and a usage error load these without loading the server or the store.
 */
export const SERVE = checkedSpec({
  name: "serve",
  options: {
    port: {
      type: "string",
      value: "N",
      means: "the port to listen on, such as 8080",
      variable: "SKILLPORT_PORT",
    },
    host: {
      type: "string",
      value: "H",
      means: "the address to listen on, such as 127.0.0.1 or 0.0.0.0",
      variable: "SKILLPORT_HOST",
    },
  },
  layout: ["port", "host", "data-dir"],
  summary: "REST API, MCP over HTTP, dashboard",
});

export const MCP = checkedSpec({
  name: "mcp",
  options: {
    remote: {
      type: "string",
      value: "URL",
      means: "the base URL of a running skillport, such as http://127.0.0.1:8080",
    },
  },
  layout: [{ either: ["data-dir", "remote"] }],
  summary: "MCP over stdio (key in SKILLPORT_API_KEY)",
});

const LEARNING_OPTIONS = {
  owner: {
    type: "string",
    value: "OWNER",
    means: "the owner whose learning it is; each key's owner is in skillport keys list",
  },
  skill: { type: "string", value: "SKILL_ID", means: "a skill's id, such as time.now" },
  json: { type: "boolean" },
} as const;

/** `learning list` and `learning forget` take the same options; they differ in what they do. */
const learningSpec = (action: "list" | "forget", summary: string) =>
  checkedSpec({
    name: `learning ${action}`,
    options: LEARNING_OPTIONS,
    layout: ["owner", "skill", "json"],
    required: ["owner"],
    summary,
  });

export const LEARNING_LIST = learningSpec(
  "list",
  "what discovery learned from the owner's use (query -> executed skill)",
);

export const LEARNING_FORGET = learningSpec("forget", "forget it (one skill, or all)");

/** Every command, in the order the help shows them. */
export const COMMANDS: readonly CommandSpec[] = [
  SERVE,
  MCP,
  ...KEYS_COMMANDS,
  LEARNING_LIST,
  LEARNING_FORGET,
];
