import { describe, expect, it } from "vitest";
import { idUuid } from "../../skills/id-uuid.js";
import { UuidV7Generator } from "../../skills/lib/uuid-v7.js";
import { runSkill } from "./run-skill.js";

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function timestampOf(uuid: string): number {
  return Number.parseInt(uuid.replace(/-/g, "").slice(0, 12), 16);
}

describe("id.uuid", () => {
  it("generates one random v4 UUID by default", async () => {
    const result = await runSkill(idUuid, {});
    expect(result.version).toBe("v4");
    expect(result.uuids).toHaveLength(1);
    expect((result.uuids as string[])[0]).toMatch(V4);
  });

  it("generates 100 distinct v7 UUIDs in ascending order carrying the current time", async () => {
    const before = Date.now();
    const { uuids } = (await runSkill(idUuid, { version: "v7", count: 100 })) as { uuids: string[] };
    const after = Date.now();
    expect(new Set(uuids).size).toBe(100);
    for (const uuid of uuids) expect(uuid).toMatch(V7);
    expect([...uuids].sort()).toEqual(uuids);
    expect(timestampOf(uuids[0] ?? "")).toBeGreaterThanOrEqual(before);
    expect(timestampOf(uuids.at(-1) ?? "")).toBeLessThanOrEqual(after + 1);
  });

  it("upper-cases on request", async () => {
    const { uuids } = (await runSkill(idUuid, { count: 3, uppercase: true })) as { uuids: string[] };
    for (const uuid of uuids) expect(uuid).toMatch(/^[0-9A-F-]{36}$/);
  });

  it("refuses more than 100", () => {
    expect(idUuid.params.safeParse({ count: 101 }).success).toBe(false);
  });
});

describe("UUID v7 generator (RFC 9562)", () => {
  it("encodes the 48-bit millisecond timestamp big-endian", () => {
    const generator = new UuidV7Generator(() => 0x0123_4567_89ab);
    expect(generator.next().slice(0, 13)).toBe("01234567-89ab");
  });

  it("stays ordered within one millisecond and when the clock steps back", () => {
    let now = 1_700_000_000_000;
    const generator = new UuidV7Generator(() => now);
    const uuids = [generator.next(), generator.next()];
    now -= 5000;
    uuids.push(generator.next(), generator.next());
    expect([...uuids].sort()).toEqual(uuids);
    expect(new Set(uuids).size).toBe(4);
  });

  it("moves to the next millisecond when the 12-bit counter would overflow", () => {
    const generator = new UuidV7Generator(() => 1_000);
    const uuids = Array.from({ length: 5000 }, () => generator.next());
    expect([...uuids].sort()).toEqual(uuids);
    expect(timestampOf(uuids.at(-1) ?? "")).toBeGreaterThan(1_000);
    for (const uuid of uuids) expect(uuid).toMatch(V7);
  });
});
