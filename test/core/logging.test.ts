import { describe, expect, it } from "vitest";
import { generateSecret, redactSecrets } from "../../src/core/keys/secret.js";
import { createLogger } from "../../src/logging.js";

function capturedLogger() {
  const lines: string[] = [];
  const logger = createLogger("info", { write: (line: string) => void lines.push(line) });
  return { logger, lines };
}

describe("logs", () => {
  const secret = generateSecret("production");

  it("redact a secret wherever it appears in a line, in a message, a field or an error", () => {
    const { logger, lines } = capturedLogger();
    logger.info({ path: `/v1/skills/${secret}` }, "request");
    logger.warn({ err: new Error(`Reply was already sent in "/v1/x/%ZZ/${secret}"`) }, "oops");
    logger.info(`a message quoting ${secret}`);
    expect(lines).toHaveLength(3);
    for (const line of lines) {
      expect(line).not.toContain(secret.slice(8));
      expect(line).toContain("sk_[redacted]");
    }
  });

  it("redact secrets however their underscores are encoded, and leave other text alone", () => {
    const encoded = secret.replaceAll("_", "%5F");
    expect(redactSecrets(`/x/${encoded}/y and ${secret.replace("sk_live_", "sk%5flive_")}`)).toBe(
      "/x/sk_[redacted]/y and sk_[redacted]",
    );
    expect(redactSecrets("skill_live_data, sk_prod_x, ask_live")).toBe(
      "skill_live_data, sk_prod_x, ask_live",
    );
  });

  it("still redact secret fields by name", () => {
    const { logger, lines } = capturedLogger();
    logger.info({ secret: "anything", headers: { authorization: "Bearer x" } }, "entry");
    expect(JSON.parse(lines[0] ?? "{}")).toMatchObject({
      secret: "[redacted]",
      headers: { authorization: "[redacted]" },
    });
  });
});
