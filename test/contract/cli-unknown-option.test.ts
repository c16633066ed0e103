import { mkdtempSync, rmSync } from "node:fs";
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
        "keys create does not take --pln; did you mean --plan?",
      ],
      [
        ["keys", "create", "--nmae", "x", "--scope", "full-access"],
        "keys create does not take --nmae; did you mean --name?",
      ],
      [
        ["keys", "create", "--name", "x", "--scope", "full-access", "--limit", "5"],
        "keys create does not take --limit; did you mean --limit-day or --limit-minute?",
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

  it("without a close option, says what the command takes, and only its own usage", async () => {
    const keys = await runCli(["keys", "edit", "key_1", "--ownr", "x", "--data-dir", dataDir]);
    expect(keys.code).toBe(2);
    expect(keys.stderr).toContain(
      "keys edit does not take --ownr: it changes only --name, --plan, --limit-minute and --limit-day.",
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
