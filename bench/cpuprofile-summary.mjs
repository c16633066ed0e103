// Summarises a V8 .cpuprofile: where the CPU time went, by function (self time), by
// package/area (self time), which of skillport's own functions it was spent under
// (inclusive time), and by source line (self time, from the profile's position ticks):
// a line far above its neighbours is often one of V8's slow paths (a spread copy given a
// new member, an object literal's getters). Frames of the CLI bundle are mapped back to
// the sources through its source maps. Usage: node bench/cpuprofile-summary.mjs FILE.cpuprofile [TOP]
import { existsSync, readFileSync } from "node:fs";
import { SourceMap } from "node:module";
import { fileURLToPath } from "node:url";

const ROOT = new URL("..", import.meta.url).href;
/** skillport's own code: the sources, or tsc's output of them in dist/. */
const OWN = new RegExp(`^${ROOT}(?:dist/)?(src|skills)/`);

/** Which package or area a frame belongs to, from its script URL. */
function area({ url, functionName }) {
  if (!url) return functionName.startsWith("(") ? functionName : "native (C++ bindings, e.g. better-sqlite3)";
  if (url.startsWith("node:")) return "node internals";
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  const own = OWN.exec(url);
  if (!own) return url;
  if (own[1] === "skills") return "skillport skills";
  // src/<first folder or file>, e.g. "skillport src/core"
  return `skillport src/${url
    .slice(own[0].length)
    .split("/")[0]
    .replace(/\.[jt]s$/, "")}`;
}

const where = ({ url, lineNumber }) =>
  url ? `${url.replace(/^.*node_modules\//, "").replace(ROOT, "")}:${lineNumber + 1}` : "";

/**
 * Points the frames of bundled code (dist/cli, esbuild) at the sources they came from,
 * through the bundle's linked source maps, so areas and places read as in the sources.
 * Frames of files without a map are left as they are.
 */
function mapToSources(profile) {
  const maps = new Map();
  const mapOf = (url) => {
    if (!maps.has(url)) {
      const mapFile = `${fileURLToPath(url)}.map`;
      maps.set(
        url,
        existsSync(mapFile) ? new SourceMap(JSON.parse(readFileSync(mapFile, "utf8"))) : undefined,
      );
    }
    return maps.get(url);
  };
  for (const node of profile.nodes) {
    const frame = node.callFrame;
    if (!frame.url.startsWith("file:")) continue;
    const map = mapOf(frame.url);
    const entry = map?.findEntry(frame.lineNumber, frame.columnNumber);
    // Position ticks name lines (1-based) of the file that ran, each mapped on its own. But V8
    // gives the lines of code inlined into the function as lines of the script the inlined
    // code came from, which may be another chunk: a line that maps into another source than
    // the function's own is such code (or, rarely, inlined from a source bundled alongside),
    // and its line cannot be told; it is counted as inlined into the function.
    node.positionTicks = node.positionTicks?.map(({ line, ticks }) => {
      const at = map?.findEntry(line - 1, 0);
      if (!at?.originalSource) return { url: frame.url, line, ticks };
      if (entry?.originalSource && at.originalSource !== entry.originalSource)
        return { inlinedInto: node, ticks };
      return { url: new URL(at.originalSource, frame.url).href, line: at.originalLine + 1, ticks };
    });
    if (!entry?.originalSource) continue;
    node.callFrame = {
      ...frame,
      url: new URL(entry.originalSource, frame.url).href,
      lineNumber: entry.originalLine,
      columnNumber: entry.originalColumn,
    };
  }
}

export function summarise(profile, top = 25) {
  mapToSources(profile);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map(); // function -> µs
  const areas = new Map(); // area -> µs
  const inclusive = new Map(); // own function -> µs (counted once per sample)
  const nativeCallers = new Map(); // native frame <- nearest skillport caller -> µs
  let total = 0;
  const add = (m, k, v) => m.set(k, (m.get(k) ?? 0) + v);

  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i + 1] ?? 0; // time until the next sample belongs to this one
    const frame = byId.get(id).callFrame;
    total += dt;
    add(self, `${frame.functionName || "(anonymous)"} ${where(frame)}`, dt);
    add(areas, area(frame), dt);
    if (!frame.url && !frame.functionName.startsWith("(")) {
      // Native code (SQLite, hashing, socket writes): charge it to the skillport code that called it.
      let n = parent.get(id);
      while (n !== undefined && !OWN.test(byId.get(n).callFrame.url)) n = parent.get(n);
      const caller = n === undefined ? "(no skillport caller)" : byId.get(n).callFrame;
      add(
        nativeCallers,
        `${frame.functionName} <- ${caller.functionName || "(anonymous)"} ${caller.url ? where(caller) : caller}`,
        dt,
      );
    }
    const seen = new Set();
    for (let n = id; n !== undefined; n = parent.get(n)) {
      const f = byId.get(n).callFrame;
      if (!OWN.test(f.url)) continue;
      const key = `${f.functionName || "(anonymous)"} ${where(f)}`;
      if (seen.has(key)) continue; // recursion: count a sample once per function
      seen.add(key);
      add(inclusive, key, dt);
    }
  });

  // Self time by source line: samples are taken at a steady rate, so ticks share time as samples do.
  const usPerTick = total / Math.max(profile.samples.length, 1);
  const lines = new Map(); // "file:line  text" -> µs
  for (const node of profile.nodes) {
    for (const { url, line, ticks, inlinedInto } of node.positionTicks ?? []) {
      if (inlinedInto) {
        const f = inlinedInto.callFrame;
        add(
          lines,
          `(code from another file inlined into ${f.functionName || "(anonymous)"} ${where(f)})`,
          ticks * usPerTick,
        );
        continue;
      }
      if (!url?.startsWith("file:")) continue;
      add(lines, `${where({ url, lineNumber: line - 1 })}  ${sourceLine(url, line)}`, ticks * usPerTick);
    }
  }

  const rows = (m, n) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(
        ([k, us]) =>
          `${((100 * us) / total).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(6)} ms  ${k}`,
      );
  return [
    `profile: ${(total / 1e6).toFixed(2)} s of samples`,
    "\nself time by package / area:",
    ...rows(areas, 15),
    `\ntop ${top} functions by self time:`,
    ...rows(self, top),
    "\nnative (C++) self time by the nearest skillport function above it:",
    ...rows(nativeCallers, 12),
    `\ntop ${top} skillport functions by inclusive time (time spent in them and what they call):`,
    ...rows(inclusive, top),
    `\ntop ${top} source lines by self time (JavaScript only; native calls are counted above):`,
    ...rows(lines, top),
  ].join("\n");
}

const sources = new Map();
/** The text of line `line` (1-based) of the file at `url`, trimmed; empty when it cannot be read. */
function sourceLine(url, line) {
  if (!sources.has(url)) {
    const path = fileURLToPath(url);
    sources.set(url, existsSync(path) ? readFileSync(path, "utf8").split("\n") : []);
  }
  return (sources.get(url)[line - 1] ?? "").trim().slice(0, 100);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [file, top] = process.argv.slice(2);
  console.log(summarise(JSON.parse(readFileSync(file, "utf8")), Number(top ?? 25)));
}
