// The last step of `npm run build`: bundles the CLI (`skillport serve | mcp | keys`) from
// tsc's output into dist/cli/, the package's `bin`.
//
// Why: an assistant spawns `skillport mcp` and waits for its tools/list. Unbundled, Node
// resolves, reads and links some 450 modules first (zod alone is 150 files), which took
// most of the ~400 ms start-up on a 2-core machine; one bundle split into a chunk per
// command starts in about 30 % less time and 40 % less CPU (issue 3, `node bench/mcp.mjs`).
//
// What stays outside the bundle, loaded from node_modules as usual:
// - tinypool, which starts its worker threads from its own files;
// - every package that our code (not a dependency's) loads with a dynamic `import()` (the
//   skills' libraries: undici, mathjs, ajv…). They load on a skill's first call, not at
//   start-up, and esbuild's chunk for a CommonJS package exports only `default`, where
//   Node's own loader (which the skills' tests use) also gives the named exports;
// - the packages loaded through createRequire, which esbuild leaves alone: better-sqlite3,
//   a native addon, in the release that src/store/sqlite/driver.ts picks for the running
//   Node; the stemmer and stop words; the embedding model.
// The skill worker threads run tsc's modules in dist/src (see src/package-files.ts), so
// the library in dist/src and the CLI bundle are the same code.
import { mkdirSync, readdirSync, realpathSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

/**
 * Keeps the packages our modules load with a dynamic `import()` external (see above). A
 * dependency's own dynamic imports are bundled: from dist/cli, Node would resolve them
 * against the top-level node_modules, not against the dependency's.
 */
const dynamicImportsStayExternal = {
  name: "dynamic-imports-stay-external",
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) =>
      args.kind === "dynamic-import" && !/[\\/]node_modules[\\/]/.test(args.importer)
        ? { path: args.path, external: true }
        : undefined,
    );
  },
};

const root = fileURLToPath(new URL("../", import.meta.url));
/** The entry of the bundle, the package's `bin`: replaced last (see replaceFiles). */
const ENTRY = "cli.js";

/**
 * Bundles dist/src/cli.js into `outdir` (dist/cli). The bundle is written beside it, in
 * `outdir.tmp`, then moved in file by file: `npm install /path/to/skillport` in a client's
 * project runs this (through `prepare`) while an assistant may be spawning
 * `node dist/cli/cli.js mcp`, and removing dist/cli before writing the new one made such a
 * spawn fail for the second the build took (a missing cli.js or chunk).
 */
export async function bundleCli(outdir = `${root}dist/cli`) {
  const staging = `${outdir}.tmp`;
  rmSync(staging, { recursive: true, force: true });
  await bundleInto(staging);
  replaceFiles(staging, outdir);
}

/**
 * Moves every file of `staging` over its namesake in `outdir`, the entry last, then
 * removes the files the new bundle no longer has. A rename over a file is atomic, so a
 * reader finds the old file or the new one, never none; and the new entry appears only
 * once the chunks it imports are in place. Chunk names hash their content: a rebuild of
 * unchanged sources writes the same names (a process that read the old entry finds its
 * chunks); only a process that read the old entry of changed sources in the instant
 * before its stale chunks are removed can miss one.
 */
export function replaceFiles(staging, outdir) {
  mkdirSync(outdir, { recursive: true });
  const incoming = readdirSync(staging).sort((a, b) => (a === ENTRY) - (b === ENTRY));
  for (const name of incoming) renameSync(join(staging, name), join(outdir, name));
  for (const name of readdirSync(outdir)) {
    if (!incoming.includes(name)) rmSync(join(outdir, name), { recursive: true, force: true });
  }
  rmSync(staging, { recursive: true, force: true });
}

async function bundleInto(outdir) {
  await build({
    absWorkingDir: root,
    entryPoints: { cli: "dist/src/cli.js" },
    outdir,
    bundle: true,
    // Each command's modules in their own chunks: `keys list` loads no HTTP server.
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    external: ["tinypool"],
    plugins: [dynamicImportsStayExternal],
    // CommonJS packages in an ES module bundle still call `require` for Node's built-ins.
    banner: {
      js: "import { createRequire as __skillportCreateRequire } from 'node:module'; const require = __skillportCreateRequire(import.meta.url);",
    },
    // Not minified: names stay as written, for logs and stack traces. (`keepNames` is for
    // minified code; here it would only wrap every closure in a per-call __name().)
    sourcemap: "linked",
    sourcesContent: false,
    legalComments: "eof",
    logLevel: "warning",
  });
}

/** Whether this module is the script node was asked to run (through a symlink or not). */
function isMain() {
  try {
    return realpathSync(process.argv[1] ?? "") === fileURLToPath(import.meta.url);
  } catch {
    return false; // no such path: node was given something else (a REPL, `-e`)
  }
}

if (isMain()) await bundleCli();
