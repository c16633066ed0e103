import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, normalize, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CreatedKey, serverForSuite } from "../contract/harness.js";

const run = promisify(execFile);
const REPO_ROOT = resolve(import.meta.dirname, "../..");

/** A program that uses the client the way a user's does: `import ... from "skillport/client"`. */
const CONSUMER_TS = `
import { Skillport, SkillportError, type ExecutionRecord } from "skillport/client";

const client = new Skillport();
try {
  const record: ExecutionRecord = await client.execute({ skill_id: "math.evaluate", params: { expression: "6*7" } });
  // @ts-expect-error: the record is typed (this fails to compile if the types were lost)
  record.no_such_field;
  console.log(JSON.stringify({ value: record.result?.value, isError: new SkillportError({ body: { code: "x", message: "y" } }) instanceof Error }));
} finally {
  await client.close();
}
`;

/** The files a `.d.ts` imports, relative ones only, transitively: what its types need shipped. */
async function declarationClosure(root: string, entry: string): Promise<Set<string>> {
  const seen = new Set<string>();
  const pending = [entry];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    const text = await readFile(join(root, file), "utf8");
    for (const match of text.matchAll(/from\s+["'](\.[^"']+)["']|import\(["'](\.[^"']+)["']\)/g)) {
      const specifier = (match[1] ?? match[2] ?? "").replace(/\.js$/, ".d.ts");
      pending.push(normalize(join(dirname(file), specifier)));
    }
  }
  return seen;
}

describe("the skillport/client package entry", () => {
  const server = serverForSuite();
  let key: CreatedKey;
  let workDir: string;

  beforeAll(async () => {
    key = await server().createRoomyKey();
    workDir = await mkdtemp(join(tmpdir(), "skillport-pack-"));
  });
  afterAll(async () => {
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  it("examples/quickstart.ts runs against the real server (importing skillport/client from this package)", async () => {
    const { stdout } = await run(process.execPath, ["--import", "tsx", "examples/quickstart.ts"], {
      cwd: REPO_ROOT,
      env: { ...process.env, SKILLPORT_API_KEY: key.secret, SKILLPORT_BASE_URL: server().baseUrl },
      timeout: 60_000,
    });
    expect(stdout).toMatch(/^found math\.evaluate/m);
    expect(stdout).toMatch(/^math\.evaluate -> \{"value":1025,/m);
    expect(stdout).toContain("failed as expected: execution_failed");
    expect(stdout).toMatch(/^progress \d+\/1500$/m);
    expect(stdout.trim().split("\n").at(-1)).toBe("status completed");
  });

  it("after npm pack, skillport/client imports, type-checks and runs with only undici and eventsource-parser installed", {
    timeout: 120_000,
  }, async () => {
    const { stdout: packed } = await run(
      "npm",
      ["pack", "--ignore-scripts", "--json", "--pack-destination", workDir],
      {
        cwd: REPO_ROOT,
      },
    );
    const [manifest] = JSON.parse(packed) as { filename: string; files: { path: string }[] }[];
    if (!manifest) throw new Error(`npm pack printed no manifest: ${packed}`);
    const shipped = new Set(manifest.files.map((file) => file.path));

    // Every declaration file the client's types reach is in the tarball.
    const needed = await declarationClosure(REPO_ROOT, "dist/src/client/index.d.ts");
    expect([...needed].filter((file) => !shipped.has(file))).toEqual([]);
    expect(shipped.has("dist/src/client/index.js")).toBe(true);

    // A consumer project with the tarball unpacked as node_modules/skillport and nothing
    // else of skillport's dependencies but the client's own (and zod, for its types).
    const consumer = join(workDir, "consumer");
    const modules = join(consumer, "node_modules");
    await mkdir(join(modules, "@types"), { recursive: true });
    await run("tar", ["-xzf", join(workDir, manifest.filename), "-C", workDir]);
    await run("mv", [join(workDir, "package"), join(modules, "skillport")]);
    for (const name of ["undici", "eventsource-parser", "zod", "@types/node"]) {
      await symlink(join(REPO_ROOT, "node_modules", name), join(modules, name), "dir");
    }
    await writeFile(join(consumer, "package.json"), JSON.stringify({ type: "module", private: true }));
    await writeFile(join(consumer, "main.ts"), CONSUMER_TS);
    await writeFile(
      join(consumer, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2023",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          skipLibCheck: true,
          types: ["node"],
          outDir: "out",
        },
        files: ["main.ts"],
      }),
    );
    const tsc = join(REPO_ROOT, "node_modules/typescript/bin/tsc");
    const compiled = await run(process.execPath, [tsc, "-p", consumer]).catch(
      (err: { stdout: string }) => err,
    );
    expect(compiled.stdout).toBe("");

    const { stdout } = await run(process.execPath, [join(consumer, "out/main.js")], {
      cwd: consumer,
      env: { ...process.env, SKILLPORT_API_KEY: key.secret, SKILLPORT_BASE_URL: server().baseUrl },
      timeout: 30_000,
    });
    expect(JSON.parse(stdout)).toEqual({ value: 42, isError: true });

    // A CommonJS project requires the same entry (require of an ES module: Node 20.19+, 22.12+).
    // Regression (audit 23, new user #11): it read "Package subpath './client' is not defined".
    await writeFile(
      join(consumer, "main.cjs"),
      'const { Skillport } = require("skillport/client"); console.log(typeof Skillport);',
    );
    const required = await run(process.execPath, [join(consumer, "main.cjs")], { cwd: consumer });
    expect(required.stdout.trim()).toBe("function");
  });
});
