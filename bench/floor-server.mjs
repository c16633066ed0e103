// The REST floor (see floor-execute.mjs): plain node:http in front of the floor's execute,
// answering any path. The key is printed on start.
import { createServer } from "node:http";
import { openFloor } from "./floor-execute.mjs";

const host = process.env.HOST ?? "127.0.0.1";
const port = Number(process.env.PORT ?? 0);
const floor = openFloor();

function answer(res, status, payload, headers = {}) {
  const json = JSON.stringify(payload);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(json),
    ...headers,
  });
  res.end(json);
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", async () => {
    let body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      return answer(res, 400, { error: { code: "invalid_request" } });
    }
    const auth = req.headers.authorization ?? "";
    const done = auth.startsWith("Bearer ") ? await floor.execute(auth.slice(7), body) : undefined;
    if (!done) return answer(res, 401, { error: { code: "invalid_api_key" } });
    answer(res, 200, done.record, done.headers);
  });
});
server.listen(port, host, () => {
  // The parent reads the key and the port from these lines.
  process.stdout.write(
    `${JSON.stringify({ key: floor.secret })}\n${JSON.stringify({ listening: server.address().port })}\n`,
  );
});
process.on("SIGTERM", () =>
  server.close(() => {
    floor.close();
    process.exit(0);
  }),
);
