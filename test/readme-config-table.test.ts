import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
const configSource = readFileSync(new URL("../src/config.ts", import.meta.url), "utf8");

/** The variables of each table in the README's "Configuration" section, table by table. */
function configurationTables(): string[][] {
  const start = readme.indexOf("\n## Configuration\n");
  const end = readme.indexOf("\n## ", start + 1);
  if (start < 0 || end < 0) throw new Error("README.md has no ## Configuration section");
  const tables: string[][] = [];
  let current: string[] | undefined;
  for (const line of readme.slice(start, end).split("\n")) {
    if (line.startsWith("| Variable |")) {
      current = [];
      tables.push(current);
    } else if (!line.startsWith("|")) {
      current = undefined;
    }
    const name = /^\| `(SKILLPORT_[A-Z0-9_]+)` \|/.exec(line)?.[1];
    if (name && current) current.push(name);
  }
  return tables;
}

/** The variables `serve` reads: the keys of the `Env` schema in src/config.ts. */
function serverVariables(): string[] {
  const body = /const Env = z\.object\(\{([\s\S]*?)\n\}\);/.exec(configSource)?.[1];
  if (!body) throw new Error("src/config.ts has no `const Env = z.object({...});`");
  return [...body.matchAll(/^ {2}(SKILLPORT_[A-Z0-9_]+):/gm)].map((match) => match[1] as string);
}

// Audit 21, #7: the README's table is the reference; it must name every variable the server
// reads, and the two that only the clients read must be there too, apart from them.
describe("the README's configuration tables", () => {
  it("list every variable src/config.ts reads, and no other, in the first table", () => {
    const [server] = configurationTables();
    expect([...(server ?? [])].sort()).toEqual(serverVariables().sort());
  });

  it("list the clients' variables in a second table, none of which the server reads", () => {
    const [, clients] = configurationTables();
    expect(clients).toEqual(["SKILLPORT_API_KEY", "SKILLPORT_BASE_URL"]);
    for (const name of clients ?? []) expect(serverVariables()).not.toContain(name);
  });
});
