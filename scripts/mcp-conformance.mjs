#!/usr/bin/env node
// Runs the official MCP conformance suite (@modelcontextprotocol/conformance) against
// `/mcp` of the built server, started on a free 127.0.0.1 port with a fresh data dir.
//
// The suite sends no credentials, and `/mcp` requires a key: a small proxy on 127.0.0.1
// adds `Authorization` to every request and forwards everything else unchanged (the Host
// and Origin headers included, so the DNS-rebinding scenario tests the server itself).
//
// Usage: npm run -s test:mcp-conformance [-- --scenario NAME]
// Scenarios that need fixture tools a product server does not have are listed, with
// the reason, in test/mcp/conformance-baseline.yml; any other failure fails the run.
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import http from "node:http";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const cli = join(root, createRequire(import.meta.url)("../package.json").bin.skillport);
const baseline = join(root, "test/mcp/conformance-baseline.yml");
const conformanceBin = join(
  dirname(createRequire(import.meta.url).resolve("@modelcontextprotocol/conformance/package.json")),
  "dist/index.js",
);

const dataDir = await mkdtemp(join(tmpdir(), "skillport-conformance-"));
const children = [];
const cleanUp = async () => {
  for (const child of children) child.kill("SIGKILL");
  await rm(dataDir, { recursive: true, force: true });
};

try {
  process.exitCode = await main();
} finally {
  await cleanUp();
}

async function main() {
  const { secret } = JSON.parse(
    await run(process.execPath, [
      cli,
      "keys",
      "create",
      "--name",
      "conformance",
      "--scope",
      "full-access",
      "--plan",
      "enterprise",
      "--limit-minute",
      "1000000",
      "--limit-day",
      "10000000",
      "--json",
      "--data-dir",
      dataDir,
    ]),
  );
  const serverPort = await freePort();
  const server = spawn(process.execPath, [cli, "serve", "--data-dir", dataDir], {
    env: {
      ...process.env,
      SKILLPORT_PORT: String(serverPort),
      SKILLPORT_HOST: "127.0.0.1",
      SKILLPORT_LOG_LEVEL: "warn",
    },
    stdio: ["ignore", "inherit", "inherit"],
  });
  children.push(server);
  await waitForHealth(`http://127.0.0.1:${serverPort}/healthz`);

  const proxy = http.createServer((req, res) => {
    const upstream = http.request(
      {
        host: "127.0.0.1",
        port: serverPort,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, authorization: `Bearer ${secret}` },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const proxyPort = proxy.address().port;
  try {
    const args = [
      conformanceBin,
      "server",
      "--url",
      `http://localhost:${proxyPort}/mcp`,
      "--expected-failures",
      baseline,
      ...process.argv.slice(2),
    ];
    return await new Promise((resolve) => {
      const suite = spawn(process.execPath, args, { stdio: "inherit" });
      children.push(suite);
      suite.on("exit", (code) => resolve(code ?? 1));
    });
  } finally {
    proxy.close();
  }
}

function run(command, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
    });
    child.on("exit", (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${command} ${args.join(" ")} exited ${code}`)),
    );
  });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = http.createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

async function waitForHealth(url) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer within 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
