import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/core/clock.js";
import { KeyJson, toKeyJson } from "../../src/core/keys/key-json.js";
import { KeyService } from "../../src/core/keys/key-service.js";
import { openMemoryStore } from "../../src/store/memory/index.js";

const snakeCase = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * `KeyJson` is the one definition of a key's public shape (`keys list --json`). A field
 * added to a key reaches every `KeyView` (the core builds it), but only reaches the JSON if
 * `toKeyJson` and the schema are told: this fails until they are.
 */
describe("KeyJson", () => {
  it("holds every member of a key as the core shows it, in snake_case, plus its status", async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 22, 12));
    const keys = new KeyService(openMemoryStore({ clock }).keys, clock);
    const { key } = await keys.create({
      name: "agent",
      scope: "read-only",
      limits: { perMinute: 5, perDay: 50 },
      environment: "staging",
      owner: "team-a",
      expiresAt: "2027-01-01",
    });
    const json = toKeyJson(key, keys.statusOf(key));

    expect(Object.keys(json).sort()).toEqual([...Object.keys(key).map(snakeCase), "status"].sort());
    expect(KeyJson.parse(json)).toEqual(json);
    expect(json).toMatchObject({
      limits: { per_minute: 5, per_day: 50 },
      expires_at: "2027-01-01T23:59:59.999Z",
    });
  });
});
