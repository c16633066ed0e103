import { describe, expect, it } from "vitest";
import { startServer } from "./harness.js";

// Regression (audit 22, operations #7): `serve` with a misspelt variable started with the
// setting's default and said nothing.
describe("skillport serve with a variable it does not know", () => {
  it("logs a warning naming it and the setting it is closest to, and starts", async () => {
    const server = await startServer({ env: { SKILLPORT_RETENTON_DAYS: "7" } });
    try {
      expect(server.logs()).toContain(
        "SKILLPORT_RETENTON_DAYS is not a skillport setting (ignored); did you mean SKILLPORT_RETENTION_DAYS?",
      );
      expect((await server.request("GET", "/healthz")).status).toBe(200);
    } finally {
      await server.stop();
    }
  });
});
