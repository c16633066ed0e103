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
import { rmSync } from "node:fs";
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
const outdir = `${root}dist/cli`;

rmSync(outdir, { recursive: true, force: true });
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
