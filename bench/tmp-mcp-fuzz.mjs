import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CLI, createBenchKey } from "./lib.mjs";
const dataDir = mkdtempSync(join(tmpdir(), "skillport-mcpfz-"));
const { secret } = createBenchKey(dataDir);
const env = { ...process.env, SKILLPORT_API_KEY: secret, SKILLPORT_DATA_DIR: dataDir, SKILLPORT_LOG_LEVEL: "warn" };
const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, "mcp"], env, stderr: "pipe" });
let stderr = ""; 
const client = new Client({ name: "fuzz", version: "1" });
await client.connect(transport);
transport.stderr?.on("data", (d) => (stderr += d));
const { tools } = await client.listTools();
const rnd = (n) => Math.floor(Math.random() * n);
const pick = (a) => a[rnd(a.length)];
const strs = ["", " ", "a", "0", "-1", "1e309", "NaN", "null", "constructor", "\u0000", "😀", "x".repeat(5000), "2+3*4", "1/0", "[1,2", "{\"a\":1}", "a,b\n1,2", "Europe/Nowhere", "UTC", "12 kg to lb", "http://127.0.0.1/", "sha256", "base64", "P1Y2M", "exec_0VcMj", "math.evaluate", "send a message"];
function rv(d = 0) { switch (rnd(d > 2 ? 5 : 7)) { case 0: case 3: return pick(strs); case 1: return pick([0, -1, 1.5, 1e308, 300001, 60, 2 ** 60]); case 2: return pick([true, false, null]); case 4: return rnd(100000); case 5: return Array.from({ length: rnd(4) }, () => rv(d + 1)); default: { const o = {}; for (let i = 0; i < rnd(4); i++) o[pick(["a", "value", "text", "expression", "query"])] = rv(d + 1); return o; } } }
function argsFor(tool) {
  const props = tool.inputSchema?.properties ?? {};
  const o = {};
  for (const [name, s] of Object.entries(props)) { if (rnd(4) === 0) continue; o[name] = s.enum && rnd(2) ? pick(s.enum) : s.type === "string" && rnd(2) ? pick(strs) : rv(); }
  if (rnd(10) === 0) o[pick(strs)] = rv();
  return rnd(20) === 0 ? rv() : o;
}
const bad = []; let n = 0; const kinds = {};
const end = Date.now() + Number(process.env.SECONDS ?? 60) * 1000;
await Promise.all(Array.from({ length: 6 }, async () => {
  while (Date.now() < end) {
    const tool = pick(tools); const args = argsFor(tool);
    if (tool.name === "util_wait" || tool.name === "http_request") continue;
    const t0 = Date.now();
    try {
      const r = await client.callTool({ name: tool.name, arguments: args }, undefined, { timeout: 30000 });
      n++;
      const k = r.isError ? "isError" : "ok"; kinds[k] = (kinds[k] ?? 0) + 1;
      const text = r.content?.map((c) => c.text).join(" ") ?? "";
      if (r.isError && (!text || /internal|TypeError|is not a function|Cannot read prop|\[object/.test(text))) bad.push({ tool: tool.name, args: JSON.stringify(args)?.slice(0, 200), text: text.slice(0, 300) });
      if (Date.now() - t0 > 1500) bad.push({ kind: "slow", ms: Date.now() - t0, tool: tool.name, args: JSON.stringify(args)?.slice(0, 200) });
    } catch (err) {
      n++; const k = `throw ${err.code}`; kinds[k] = (kinds[k] ?? 0) + 1;
      if (err.code !== -32602 && !String(err).includes("forbidden key")) bad.push({ tool: tool.name, args: JSON.stringify(args)?.slice(0, 200), err: String(err).slice(0, 300) });
    }
  }
}));
console.log("calls", n, JSON.stringify(kinds));
const seen = new Set();
for (const b of bad) { const k = JSON.stringify([b.tool, b.kind, (b.text ?? b.err)?.slice(0, 60)]); if (seen.has(k)) continue; seen.add(k); console.log(JSON.stringify(b)); }
if (stderr.trim()) console.log("STDERR:", stderr.slice(0, 2000));
await client.close();
rmSync(dataDir, { recursive: true, force: true });
