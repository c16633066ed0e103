import { describe, expect, it } from "vitest";
import { printableName } from "../../src/core/keys/key-service.js";

// Names stored before control characters were refused still reach `skillport keys list`.
describe("printableName", () => {
  it("escapes what a terminal would obey, and leaves printable text as it is", () => {
    expect(printableName("red\u001b[31m\nrow\u202e")).toBe("red\\u001b[31m\\u000arow\\u202e");
    expect(printableName("Agent – prod ✓ 日本")).toBe("Agent – prod ✓ 日本");
  });
});
