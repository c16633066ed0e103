import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { signInLinkText } from "../src/http/dashboard/sign-in-link-text.js";

const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");

// Audit 32: the README's copy of the console's sign-in message had lost a line of it, so
// the first thing a new user compares with the README differed from it.
describe("the README's sign-in link", () => {
  it("shows the message serve prints, word for word", () => {
    const block = /\n```\n(skillport dashboard: sign in[\s\S]*?)\n```\n/.exec(readme)?.[1];
    if (block === undefined)
      throw new Error("README.md shows no console block starting 'skillport dashboard: sign in'");
    const url = /^ {4}(http\S+)$/m.exec(block)?.[1] ?? "";
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:8080\/dashboard\/sign-in\?token=/);
    expect(block).toBe(signInLinkText(url).trim());
  });
});
