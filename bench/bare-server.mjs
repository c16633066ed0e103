// The baseline for `npm run bench`: plain node:http that does the minimum any JSON API
// must do (read the body, JSON.parse it, answer JSON) and nothing else. The answer is
// about the size of skillport's execution record (~300 bytes) so both write similar bytes.
import { createServer } from "node:http";

const host = process.env.HOST ?? "127.0.0.1";
const port = Number(process.env.PORT ?? 0);
let n = 0;

const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    let body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      res.writeHead(400, { "content-type": "application/json" }).end('{"error":"bad json"}');
      return;
    }
    const now = new Date().toISOString();
    const json = JSON.stringify({
      id: `exec_${(++n).toString(36).padStart(22, "0")}`,
      skill_id: body.skill_id ?? null,
      status: "completed",
      success: true,
      error: null,
      latency_ms: 0.05,
      result: { value: 14, type: "number", text: "14" },
      created_at: now,
      started_at: now,
      finished_at: now,
    });
    res.writeHead(200, {
      "content-type": "application/json; charset=utf-8",
      "content-length": Buffer.byteLength(json),
    });
    res.end(json);
  });
});
server.listen(port, host, () => {
  // The parent reads the port from this line.
  process.stdout.write(`${JSON.stringify({ listening: server.address().port })}\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
