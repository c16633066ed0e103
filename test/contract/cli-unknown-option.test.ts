import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "./harness.js";

/**
 * A mistyped option is refused in skillport's words with the option probably meant, and
 * the command's own usage (audit 27). Node's message advised passing `--pln` as an argument
 * after `--`, which no command takes, and ran into the whole 20-line usage.
 */
const dataDir = mkdtempSync(join(tmpdir(), "skillport-unknown-option-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe("contract: a mistyped CLI option", () => {
  it("is refused with exit 2 naming it and the option probably meant, never Node's `--` advice", async () => {
    const cases: [string[], string][] = [
      [
        ["keys", "create", "--name", "a", "--scope", "full-access", "--pln", "pro"],
        "skillport keys create does not take --pln; did you mean --plan?",
      ],
      [
        ["keys", "create", "--nmae", "x", "--scope", "full-access"],
        "skillport keys create does not take --nmae; did you mean --name?",
      ],
      [
        ["keys", "create", "--name", "x", "--scope", "full-access", "--limit", "5"],
        "skillport keys create does not take --limit; did you mean --limit-day or --limit-minute?",
      ],
      [
        ["learning", "list", "--ownr", "alice"],
        "skillport learning list does not take --ownr; did you mean --owner?",
      ],
      [
        ["mcp", "--remot", "http://127.0.0.1:1"],
        "skillport mcp does not take --remot; did you mean --remote?",
      ],
      [["serve", "--prot", "0"], "skillport serve does not take --prot; did you mean --port?"],
    ];
    for (const [args, message] of cases) {
      const result = await runCli([...args, "--data-dir", dataDir], { SKILLPORT_API_KEY: "" });
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr.split("\n")[0], args.join(" ")).toBe(message);
      expect(result.stderr).not.toContain("positional");
      expect(result.stderr).toContain(
        `skillport ${args[0]} ${args[0] === "keys" || args[0] === "learning" ? args[1] : ""}`.trim(),
      );
      expect(result.stdout).toBe("");
    }
  });

  // Found by the operations audit (session 39): the last value won without a word.
  it("refuses an option given twice with exit 2, creating nothing", async () => {
    const cases: [string[], string][] = [
      [
        ["keys", "create", "--name", "x", "--name", "y", "--scope", "full-access"],
        "skillport keys create: --name is given more than once; give it once.",
      ],
      [
        ["keys", "create", "--name", "x", "--scope", "full-access", "--json", "--json"],
        "skillport keys create: --json is given more than once; give it once.",
      ],
      [
        ["serve", "--port", "0", "--port", "1"],
        "skillport serve: --port is given more than once; give it once.",
      ],
    ];
    for (const [args, message] of cases) {
      const result = await runCli([...args, "--data-dir", dataDir], { SKILLPORT_API_KEY: "" });
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr.split("\n")[0], args.join(" ")).toBe(message);
      expect(result.stdout).toBe("");
    }
    expect(readdirSync(dataDir)).toEqual([]);
  });

  it("without a close option, says what the command takes, and only its own usage", async () => {
    const keys = await runCli(["keys", "edit", "key_1", "--ownr", "x", "--data-dir", dataDir]);
    expect(keys.code).toBe(2);
    expect(keys.stderr).toContain(
      "skillport keys edit does not take --ownr: it changes only --name, --plan, --limit-minute and --limit-day.",
    );
    const serve = await runCli(["serve", "--zzz", "--data-dir", dataDir]);
    expect(serve.code).toBe(2);
    expect(serve.stderr).toContain(
      "skillport serve does not take --zzz: it takes --port, --host and --data-dir.",
    );
    expect(serve.stderr).toContain("skillport serve [--port N]");
    expect(serve.stderr).not.toContain("skillport keys");
  });
});

/**
 * An option missing its value, a flag given one and a stray argument were told in Node's
 * words (`Option '--name <value>' argument missing`, `... argument is ambiguous`, `This
 * command does not take positional arguments`); now in skillport's, naming the command,
 * the option and what value it takes, with exit 2 and nothing on stdout.
 */
describe("contract: a CLI option missing its value, or a flag given one", () => {
  const secret = `sk_live_${"A1b2C3d4E5".repeat(3)}abcdef`;
  it("is refused with exit 2 naming the command, the option and the value it takes", async () => {
    const d = ["--data-dir", dataDir];
    const cases: [string[], string][] = [
      [
        ["keys", "create", ...d, "--scope", "full-access", "--name"],
        "skillport keys create: --name needs a value (the key's name).",
      ],
      [
        ["keys", "create", ...d, "--name", "--scope", "full-access", "--json"],
        "skillport keys create: --name needs a value (the key's name) before --scope.",
      ],
      [
        ["keys", "create", ...d, "--name", "a", "--scope", "full-access", "--owner", "-team"],
        'skillport keys create: --owner needs a value (the owner the key\'s records belong to); to give "-team", which starts with a dash, write --owner=-team.',
      ],
      [
        ["keys", "edit", "key_1", ...d, "--limit-minute", "5", "--limit-day"],
        "skillport keys edit: --limit-day needs a value (the key's requests a day, 1 to 1,000,000,000).",
      ],
      [
        ["keys", "roll", "key_1", ...d, "--grace"],
        "skillport keys roll: --grace needs a value (how long the old secret keeps working: seconds, or a number with s, m, h or d).",
      ],
      [
        ["keys", "list", ...d, "--json=yes"],
        "skillport keys list: --json takes no value: give --json alone, or leave it out.",
      ],
      [
        ["serve", ...d, "--port"],
        "skillport serve: --port needs a value (the port to listen on, such as 8080).",
      ],
      [
        ["mcp", ...d, "--remote"],
        "skillport mcp: --remote needs a value (the base URL of a running skillport, such as http://127.0.0.1:8080).",
      ],
      [
        ["learning", "list", ...d, "--owner"],
        "skillport learning list: --owner needs a value (the owner whose learning it is; each key's owner is in skillport keys list).",
      ],
      [
        ["learning", "forget", ...d, "--owner", "a", "--json=1"],
        "skillport learning forget: --json takes no value: give --json alone, or leave it out.",
      ],
      [["serve", ...d, "8080"], 'skillport serve takes no argument, only options; unexpected: "8080".'],
      [
        ["learning", "list", ...d, "alice"],
        'skillport learning list takes no argument, only options; unexpected: "alice".',
      ],
      [
        ["mcp", ...d, secret],
        "skillport mcp takes no argument, only options; unexpected: what looks like a key's secret.",
      ],
    ];
    for (const [args, message] of cases) {
      const result = await runCli(args, { SKILLPORT_API_KEY: "" });
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr.split("\n")[0], args.join(" ")).toBe(message);
      expect(result.stderr).toMatch(/Usage:/);
      expect(result.stderr).not.toMatch(/argument missing|ambiguous|positional|does not take an argument/);
      expect(result.stderr).not.toContain(secret.slice(8));
      expect(result.stdout).toBe("");
    }
  });
});

/**
 * `skillport keys` alone or with an unknown action, and `learning` likewise, printed only
 * usage lines, never saying what was wrong; `keys revoke` without its KEY_ID opened the store
 * first (and with none there, told of the missing store instead); `serve --port abc` was
 * refused as `SKILLPORT_PORT`, a variable the user never set; and `keys` refusals were
 * worded and laid out unlike every other command's. Every refusal now names the command and
 * the problem in one line, then a blank line and the command's usage, with exit 2.
 */
describe("contract: a CLI command line missing its action, its KEY_ID or a good option value", () => {
  const secret = `sk_live_${"A1b2C3d4E5".repeat(3)}abcdef`;

  it("says what is missing or wrong, then the command's usage after a blank line", async () => {
    const d = ["--data-dir", dataDir];
    // The command line, the refusal's first line, and the first usage line under it.
    const cases: [string[], string, string][] = [
      [["keys"], "skillport keys needs an action first: create, list, edit, revoke and roll.", "keys create"],
      [
        ["keys", ...d, "--json"],
        "skillport keys needs an action first: create, list, edit, revoke and roll.",
        "keys create",
      ],
      [
        ["keys", "bogus", ...d],
        'skillport keys has no action "bogus": its actions are create, list, edit, revoke and roll.',
        "keys create",
      ],
      [
        ["keys", secret, ...d],
        "skillport keys has no action what looks like a key's secret: its actions are create, list, edit, revoke and roll.",
        "keys create",
      ],
      [["learning", ...d], "skillport learning needs an action first: list or forget.", "learning list"],
      [
        ["learning", "--bogus", ...d],
        "skillport learning needs an action first: list or forget.",
        "learning list",
      ],
      [
        ["learning", "lsit", ...d],
        'skillport learning has no action "lsit": its actions are list and forget.',
        "learning list",
      ],
      [
        ["learning", "list", ...d],
        "skillport learning list needs --owner (the owner whose learning it is; each key's owner is in skillport keys list).",
        "learning list",
      ],
      [
        ["keys", "list", "extra", ...d],
        'skillport keys list takes no KEY_ID or other argument; unexpected: "extra".',
        "keys list",
      ],
      [
        ["keys", "roll", "key_x", "--grace", "3y", ...d],
        "skillport keys roll: --grace: seconds, or a number with s, m, h or d, such as 24h.",
        "keys roll",
      ],
    ];
    for (const [args, message, usage] of cases) {
      const result = await runCli(args);
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr, args.join(" ")).toMatch(
        new RegExp(`^[^\\n]*\\n\\nUsage:\\n  skillport ${usage}`, "m"),
      );
      expect(result.stderr.split("\n")[0], args.join(" ")).toBe(message);
      expect(result.stderr).not.toContain(secret);
      expect(result.stdout).toBe("");
    }
  });

  it("refuses keys revoke, edit and roll without a KEY_ID before looking for a store", async () => {
    const empty = mkdtempSync(join(tmpdir(), "skillport-no-store-"));
    try {
      for (const action of ["revoke", "edit", "roll"]) {
        const result = await runCli(["keys", action, "--data-dir", empty]);
        expect(result.code, action).toBe(2);
        expect(result.stderr.split("\n")[0]).toBe(
          `skillport keys ${action} needs a KEY_ID: the key's id (key_…), from skillport keys list.`,
        );
        expect(result.stderr).not.toMatch(/no store/);
      }
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it("names the option, not the variable it stands for, when serve's option value is refused", async () => {
    for (const [value, problem] of [
      ["abc", "must be a whole number"],
      ["70000", "must be at most 65535"],
    ]) {
      const result = await runCli(["serve", "--port", value as string, "--data-dir", dataDir]);
      expect(result.code, value).toBe(2);
      expect(result.stderr.split("\n")[0]).toBe(`skillport serve: --port: ${problem}`);
      expect(result.stderr).toContain("\n\nUsage:\n  skillport serve [--port N]");
      expect(result.stderr).not.toContain("SKILLPORT_PORT");
    }
    // Set in the environment, the variable is what is named, as before.
    const fromEnv = await runCli(["serve", "--data-dir", dataDir], { SKILLPORT_PORT: "abc" });
    expect(fromEnv.code).toBe(1);
    expect(fromEnv.stderr).toContain("Invalid configuration: SKILLPORT_PORT: must be a whole number");
  });

  // keys and learning read --data-dir into the store's settings by a path of their own, and
  // refused an empty one as `Invalid configuration: SKILLPORT_DATA_DIR`, naming no command.
  it("names --data-dir, not SKILLPORT_DATA_DIR, when keys or learning refuse its value", async () => {
    for (const command of [
      ["keys", "list"],
      ["keys", "create", "--name", "a", "--scope", "read-only"],
      ["learning", "list", "--owner", "alice"],
    ]) {
      const name = command.slice(0, 2).join(" ");
      const result = await runCli([...command, "--data-dir", ""]);
      expect(result.code, name).toBe(2);
      expect(result.stderr.split("\n")[0], name).toMatch(new RegExp(`^skillport ${name}: --data-dir: \\S`));
      expect(result.stderr, name).toContain(`\n\nUsage:\n  skillport ${name}`);
      expect(result.stderr, name).not.toContain("SKILLPORT_DATA_DIR");
      expect(result.stdout, name).toBe("");
    }
    // Set in the environment, the variable is what is named, as before.
    const fromEnv = await runCli(["keys", "list"], { SKILLPORT_DATA_DIR: "" });
    expect(fromEnv.code).toBe(1);
    expect(fromEnv.stderr).toContain("Invalid configuration: SKILLPORT_DATA_DIR: ");
  });
});

describe("contract: keys create with a value it refuses", () => {
  // It opened (and so created) the store first, saying "there was no store in DIR, so this
  // creates one", then refused the value: a store made for a key never created.
  it("is refused before any store is opened or made", async () => {
    const empty = mkdtempSync(join(tmpdir(), "skillport-no-store-"));
    try {
      const result = await runCli([
        "keys",
        "create",
        "--name",
        "x",
        "--scope",
        "full-access",
        "--limit-minute",
        "1e3",
        "--limit-day",
        "5",
        "--data-dir",
        empty,
      ]);
      expect(result.code).toBe(2);
      expect(result.stderr.split("\n")[0]).toBe(
        "skillport keys create: --limit-minute: must be a whole number",
      );
      expect(result.stderr).not.toContain("creates one");
      expect(readdirSync(empty)).toEqual([]);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe("contract: keys edit with changes it refuses", () => {
  // Its changes were checked only once the store was open: with none in the data directory
  // it told of the missing store, not of the command line it could never run.
  it("is refused for its changes before any store is looked for", async () => {
    const empty = mkdtempSync(join(tmpdir(), "skillport-no-store-"));
    try {
      const cases: [string[], string][] = [
        [["--limit-minute", "abc", "--limit-day", "5"], "--limit-minute: must be a whole number"],
        [["--limit-minute", "5"], "--limit-minute and --limit-day go together"],
        [[], "nothing to change"],
      ];
      for (const [changes, problem] of cases) {
        const result = await runCli(["keys", "edit", "key_x", ...changes, "--data-dir", empty]);
        expect(result.code, problem).toBe(2);
        expect(result.stderr.split("\n")[0], problem).toContain(`skillport keys edit: ${problem}`);
        expect(result.stderr, problem).toContain("\n\nUsage:\n  skillport keys edit KEY_ID");
        expect(result.stderr, problem).not.toMatch(/no store/);
      }
      expect(readdirSync(empty)).toEqual([]);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
