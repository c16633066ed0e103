import { describe, expect, it } from "vitest";
import { z } from "zod";
import { recordToDocument, schemaText, skillToDocument } from "../../src/core/discovery/document.js";
import { toCatalogSkill } from "../../src/core/skills/registry.js";
import { defineSkill } from "../../src/core/skills/skill.js";

describe("schemaText", () => {
  it("collects parameter names, titles, descriptions and short enums", () => {
    const text = schemaText({
      type: "object",
      description: "Search options",
      properties: {
        query: { type: "string", description: "Words to look for" },
        unit: { type: "string", title: "Unit", enum: ["celsius", "fahrenheit"] },
      },
    });
    expect(text.split("\n")).toEqual([
      "Search options",
      "query",
      "Words to look for",
      "unit",
      "Unit",
      "celsius",
      "fahrenheit",
    ]);
  });

  it("walks nested objects and arrays of objects two levels deep, not further", () => {
    const text = schemaText({
      type: "object",
      properties: {
        filter: {
          type: "object",
          properties: { since: { type: "object", properties: { tooDeep: { type: "string" } } } },
        },
        recipients: { type: "array", items: { type: "object", properties: { address: { type: "string" } } } },
      },
    });
    expect(text.split("\n")).toEqual(["filter", "since", "recipients", "address"]);
  });

  it("skips long enums, which are code lists rather than words", () => {
    const codes = Array.from({ length: 50 }, (_, index) => `C${index}`);
    expect(schemaText({ type: "object", properties: { code: { enum: codes } } })).toBe("code");
  });

  it("tolerates a missing or malformed schema", () => {
    expect(schemaText(null)).toBe("");
    expect(schemaText({ properties: ["not", "a", "map"] })).toBe("");
    expect(schemaText({ properties: { bare: true } })).toBe("bare");
  });
});

describe("skillToDocument", () => {
  it("fills every field from the catalog skill", () => {
    const skill = defineSkill({
      id: "message.send",
      title: "Send a message",
      description: "Posts a message.",
      tags: ["Messaging", " write ", "messaging"],
      params: z.object({ channel: z.string().describe("Channel name") }),
      result: z.object({}),
      annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
      examples: [{ query: "tell #general hello", params: { channel: "general" } }],
      run: async () => ({}),
    });
    const document = skillToDocument(toCatalogSkill(skill));
    expect(document.id).toBe("message.send");
    expect(document.tags).toEqual(["messaging", "write"]);
    expect(document.fields).toEqual({
      id: "message.send",
      title: "Send a message",
      tags: "Messaging\n write \nmessaging",
      description: "Posts a message.",
      params: "channel\nChannel name",
      examples: "tell #general hello",
      extra: "",
    });
  });
});

describe("recordToDocument", () => {
  it("uses the name as title and the extra text as its own field", () => {
    const document = recordToDocument({
      id: "w",
      name: "Weather",
      description: "Forecasts.",
      extra: "Long text",
    });
    expect(document.fields.title).toBe("Weather");
    expect(document.fields.extra).toBe("Long text");
    expect(document.tags).toEqual([]);
  });
});
