// Summarises a V8 .cpuprofile: where the CPU time went, by function (self time), by
// package/area (self time), and which of skillport's own functions it was spent under
// (inclusive time). Usage: node bench/cpuprofile-summary.mjs FILE.cpuprofile [TOP]
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** Which package or area a frame belongs to, from its script URL. */
function area({ url, functionName }) {
  if (!url) return functionName.startsWith("(") ? functionName : "native (C++ bindings, e.g. better-sqlite3)";
  if (url.startsWith("node:")) return "node internals";
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  const own = /\/dist\/(src\/[^/]+|skills)/.exec(url);
  if (own) return `skillport ${own[1].replace(/\.js$/, "")}`;
  return url;
}

const where = ({ url, lineNumber }) =>
  url ? `${url.replace(/^.*node_modules\//, "").replace(/^.*\/dist\//, "dist/")}:${lineNumber + 1}` : "";

export function summarise(profile, top = 25) {
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
      while (n !== undefined && !/\/dist\/(src|skills)\//.test(byId.get(n).callFrame.url)) n = parent.get(n);
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
      if (!/\/dist\/(src|skills)\//.test(f.url)) continue;
      const key = `${f.functionName || "(anonymous)"} ${where(f)}`;
      if (seen.has(key)) continue; // recursion: count a sample once per function
      seen.add(key);
      add(inclusive, key, dt);
    }
  });

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
  ].join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [file, top] = process.argv.slice(2);
  console.log(summarise(JSON.parse(readFileSync(file, "utf8")), Number(top ?? 25)));
}
