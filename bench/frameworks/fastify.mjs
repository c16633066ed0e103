// Fastify 5, defaults (no logger), built-in JSON body parser; field checked by hand so
// the comparison is the framework, not a schema validator.
import Fastify from "fastify";

const app = Fastify();
app.post("/", async (request, reply) => {
  const body = request.body;
  if (typeof body?.skill_id !== "string") return reply.code(400).send({ error: "skill_id must be a string" });
  return { ok: true, skill_id: body.skill_id, at: new Date().toISOString() };
});
const address = await app.listen({ port: 0, host: "127.0.0.1" });
process.stdout.write(`${JSON.stringify({ listening: Number(new URL(address).port) })}\n`);
