// Hono 4 on @hono/node-server (Web Request/Response adapted from node:http).
import { serve } from "@hono/node-server";
import { Hono } from "hono";

const app = new Hono();
app.post("/", async (c) => {
  let body;
  try {
    body = await c.req.json();
  } catch {
    body = undefined;
  }
  if (typeof body?.skill_id !== "string") return c.json({ error: "skill_id must be a string" }, 400);
  return c.json({ ok: true, skill_id: body.skill_id, at: new Date().toISOString() });
});
serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info) =>
  process.stdout.write(`${JSON.stringify({ listening: info.port })}\n`),
);
