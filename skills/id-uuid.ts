import { randomUUID } from "node:crypto";
import { z } from "zod";
import { defineSkill } from "../src/core/skills/skill.js";
import { UuidV7Generator } from "./lib/uuid-v7.js";

const v7 = new UuidV7Generator();

export const idUuid = defineSkill({
  id: "id.uuid",
  title: "Generate UUIDs",
  description:
    "Generates 1 to 100 random UUIDs: version 4 (fully random) or version 7 (time-ordered, sorts by creation time, " +
    "good as database keys), per RFC 9562. Use it whenever you need unique identifiers.",
  tags: ["uuid", "guid", "id", "identifier", "random", "unique"],
  params: z.object({
    version: z
      .enum(["v4", "v7"])
      .default("v4")
      .describe("v4: random; v7: time-ordered (Unix milliseconds first)."),
    count: z.number().int().min(1).max(100).default(1).describe("How many UUIDs to generate (1-100)."),
    uppercase: z
      .boolean()
      .default(false)
      .describe("Upper-case hex digits instead of the canonical lower case."),
  }),
  result: z.object({
    uuids: z.array(z.string()).describe("The generated UUIDs; v7 ones in ascending order."),
    version: z.string().describe("UUID version generated."),
  }),
  annotations: { readOnly: true, destructive: false, idempotent: false, openWorld: false },
  examples: [
    { query: "generate a uuid", params: {} },
    { query: "give me 5 time-ordered UUIDs for database keys", params: { version: "v7", count: 5 } },
    { query: "create 10 random GUIDs in upper case", params: { version: "v4", count: 10, uppercase: true } },
  ],
  async run(params) {
    const uuids = Array.from({ length: params.count }, () =>
      params.version === "v7" ? v7.next() : randomUUID(),
    );
    return {
      uuids: params.uppercase ? uuids.map((uuid) => uuid.toUpperCase()) : uuids,
      version: params.version,
    };
  },
});
