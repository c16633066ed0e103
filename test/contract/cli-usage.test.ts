import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type CommandSpec, checkedSpec, optionOf, parsingOptions } from "../../src/cli/command-spec.js";
import { COMMANDS } from "../../src/cli/commands.js";
import { REPO_ROOT, runCli } from "./harness.js";

/**
 * Each command's usage lines were written by hand beside the options parsing took: an
 * option could be taken and never shown, or shown and no longer taken. Both now come from
 * one definition per command (src/cli/command-spec.ts); these check what a user reads, from
 * the built CLI, against what its parsing takes.
 */
const taken = (spec: CommandSpec) => Object.keys(parsingOptions(spec.options));
const optionIn = (text: string, name: string) => new RegExp(`(^|[\\s[|])--${name}(?=[\\s\\]=]|$)`).test(text);

/** The help's lines of `spec`: its usage line and the lines under it. */
function linesOf(help: string, spec: CommandSpec): string {
  const lines = help.split("\n");
  const start = lines.findIndex(
    (line) => line === `  skillport ${spec.name}` || line.startsWith(`  skillport ${spec.name} `),
  );
  if (start < 0) return "";
  const end = lines.findIndex((line, index) => index > start && !line.startsWith("        "));
  return lines.slice(start, end < 0 ? undefined : end).join("\n");
}

describe("contract: the CLI's help and usage", () => {
  it("names every option each command takes, with its value, in its own lines or among those every command takes", async () => {
    const { code, stdout } = await runCli(["--help"]);
    expect(code).toBe(0);
    const everyCommand = stdout.split("\n").find((line) => line.startsWith("Every command takes")) ?? "";
    expect(COMMANDS.length).toBeGreaterThan(8);
    for (const spec of COMMANDS) {
      const own = linesOf(stdout, spec);
      expect(own, spec.name).not.toBe("");
      for (const name of taken(spec)) {
        const option = optionOf(spec, name);
        const shownIn = optionIn(own, name) ? own : everyCommand;
        expect(optionIn(shownIn, name), `skillport ${spec.name} --${name}`).toBe(true);
        if (option?.type === "string") expect(shownIn, `--${name}`).toContain(`--${name} ${option.value}`);
      }
    }
    // `--help` after any command prints the same text.
    for (const spec of COMMANDS) {
      const help = await runCli([...spec.name.split(" "), "--help"]);
      expect(help.code, spec.name).toBe(0);
      expect(help.stdout, spec.name).toBe(stdout);
    }
  });

  it("shows, with a usage error, a usage naming every option of the command", async () => {
    for (const spec of COMMANDS) {
      const refused = await runCli([...spec.name.split(" "), "--zzz"]);
      expect(refused.code, spec.name).toBe(2);
      expect(refused.stdout).toBe("");
      const usage = refused.stderr.slice(refused.stderr.indexOf("Usage:"));
      expect(usage, spec.name).toContain(`skillport ${spec.name}`);
      const own = taken(spec).filter((name) => name !== "help" && name !== "data-dir");
      for (const name of own) expect(optionIn(usage, name), `skillport ${spec.name} --${name}`).toBe(true);
    }
  });

  it("refuses, when the CLI loads, a command whose usage line would leave out an option it takes or show one it does not", () => {
    const json = { type: "boolean" } as const;
    expect(() => checkedSpec({ name: "x", options: { json }, layout: [] })).toThrow(/left out: json/);
    const unknown = { name: "x", options: {}, layout: ["json"] } as unknown as Parameters<
      typeof checkedSpec
    >[0];
    expect(() => checkedSpec(unknown)).toThrow(/not taken: json/);
    expect(() => checkedSpec({ name: "x", options: { json }, layout: ["json", "data-dir"] })).not.toThrow();
  });

  it("README's command lines use only options their command takes", () => {
    const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
    const byName = new Map(COMMANDS.map((spec) => [spec.name, spec]));
    const commandLine =
      /(?:npm run -s cli --|npx skillport|skillport) (serve|mcp|keys \w+|learning \w+)([^`\n]*)/g;
    let checked = 0;
    for (const [line, name = "", rest = ""] of readme.matchAll(commandLine)) {
      const spec = byName.get(name);
      if (spec === undefined) continue;
      checked++;
      for (const [option] of rest.matchAll(/(?<=^|\s)--[a-z][a-z-]*/g)) {
        expect(taken(spec), line).toContain(option.slice(2));
      }
    }
    expect(checked).toBeGreaterThan(8);
  });
});
