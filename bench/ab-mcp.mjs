// A/B of two builds of `skillport mcp`: the server CPU each tools/call of math_evaluate
// costs (user + system time of the server process per call), over alternating rounds so
// that other work on the machine weighs on both alike. CPU per call is steadier than calls/s
// on a busy 2-core machine. Usage, with the other build in a worktree of its own (built,
// node_modules linked):
//   node bench/ab-mcp.mjs OTHER/dist/cli/cli.js [rounds=10] [seconds=5] [in-flight=16]
// prints, per round and as the median, how many times the other build's CPU per call this
// build's is (above 1: this build is cheaper). Single rounds vary by ±15 % even on a quiet
// machine (comparing a build with itself): trust the median of 10 rounds or more, and a
// difference of a few percent only when bench/run.mjs agrees.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CLI, cpuSeconds, createBenchKey, LOG_LEVEL } from "./lib.mjs";

const [baseCli, rounds = "10", seconds = "5", inFlight = "16"] = process.argv.slice(2);
if (!baseCli)
  throw new Error("usage: node bench/ab-mcp.mjs OTHER/dist/cli/cli.js [rounds] [seconds] [in-flight]");
const ARGS = { expression: "2+3*4" };

async function connect(cli) {
  const dataDir = mkdtempSync(join(tmpdir(), "skillport-ab-"));
  const { secret } = createBenchKey(dataDir, {}, {}, cli);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cli, "mcp"],
    env: {
      ...process.env,
      SKILLPORT_API_KEY: secret,
      SKILLPORT_DATA_DIR: dataDir,
      SKILLPORT_LOG_LEVEL: LOG_LEVEL,
    },
    stderr: "inherit",
  });
  const client = new Client({ name: "ab", version: "1" });
  await client.connect(transport);
  return {
    /** Server CPU µs per call over `secs` seconds of `inFlight` callers. */
    async cpuPerCall(secs) {
      let calls = 0;
      const cpu0 = cpuSeconds(transport.pid);
      const end = performance.now() + secs * 1000;
      await Promise.all(
        Array.from({ length: Number(inFlight) }, async () => {
          while (performance.now() < end) {
            const result = await client.callTool({ name: "math_evaluate", arguments: ARGS });
            if (result.isError) throw new Error(`call failed: ${JSON.stringify(result)}`);
            calls++;
          }
        }),
      );
      return ((cpuSeconds(transport.pid) - cpu0) * 1e6) / calls;
    },
    async close() {
      await client.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

const base = await connect(baseCli);
const current = await connect(CLI);
try {
  // Warm-up: mathjs loaded and the hot paths compiled in both.
  await base.cpuPerCall(4);
  await current.cpuPerCall(4);
  const ratios = [];
  for (let round = 0; round < Number(rounds); round++) {
    // Each build goes first every other round.
    const order = round % 2 ? [current, base] : [base, current];
    const [first, second] = [
      await order[0].cpuPerCall(Number(seconds)),
      await order[1].cpuPerCall(Number(seconds)),
    ];
    const [baseUs, currentUs] = round % 2 ? [second, first] : [first, second];
    ratios.push(baseUs / currentUs);
    console.log(
      `round ${round}: other ${baseUs.toFixed(1)} µs/call, this ${currentUs.toFixed(1)} µs/call, other/this ${(baseUs / currentUs).toFixed(3)}`,
    );
  }
  ratios.sort((a, b) => a - b);
  console.log(`median other/this: ${ratios[Math.floor(ratios.length / 2)].toFixed(3)}`);
} finally {
  await base.close();
  await current.close();
}
