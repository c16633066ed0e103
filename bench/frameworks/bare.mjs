// Baseline: node:http, read the body, JSON.parse, check one field, answer JSON.
import { createServer } from "node:http";

const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    let body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      body = undefined;
    }
    const ok = typeof body?.skill_id === "string";
    const json = JSON.stringify(
      ok
        ? { ok: true, skill_id: body.skill_id, at: new Date().toISOString() }
        : { error: "skill_id must be a string" },
    );
    res.writeHead(ok ? 200 : 400, {
      "content-type": "application/json; charset=utf-8",
      "content-length": Buffer.byteLength(json),
    });
    res.end(json);
  });
});
server.listen(0, "127.0.0.1", () =>
  process.stdout.write(`${JSON.stringify({ listening: server.address().port })}\n`),
);
