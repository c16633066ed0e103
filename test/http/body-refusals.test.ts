import { afterEach, describe, expect, it } from "vitest";
import { echo } from "../core/test-skills.js";
import { inProcessApi } from "./in-process-api.js";

/** The `error` object of a refusal, with its status. */
function refusal(res: { statusCode: number; body: string }) {
  const { error } = JSON.parse(res.body) as { error: { code: string; message: string } };
  return { status: res.statusCode, code: error.code, message: error.message };
}

// A body refused for its form told only what the API wants, or spoke zod: `curl -d` without
// a Content-Type header (sent as a form) was told "must be application/json" without the
// header to set or what came instead, and a POST without a body got "(root): Invalid input:
// expected object, received undefined".
describe("a request body refused for its form says what came and what to send", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function setUp() {
    const { request } = await inProcessApi([echo], cleanups);
    const post = (url: string, payload: string | undefined, headers: Record<string, string> = {}) =>
      request("POST", url, payload, headers);
    return { post };
  }

  it("names the Content-Type a refused body came with, and the header to send", async () => {
    const { post } = await setUp();
    const form = await post("/v1/discover", "query=send", {
      "content-type": "application/x-www-form-urlencoded",
    });
    expect(refusal(form)).toEqual({
      status: 415,
      code: "unsupported_media_type",
      message:
        "The request body must be JSON, sent with the header 'Content-Type: application/json'; this one came as application/x-www-form-urlencoded.",
    });
    // Only the media type is repeated, never the rest of the header.
    const text = await post("/v1/execute", "hi", { "content-type": "Text/Plain; boundary=abc" });
    expect(refusal(text).message).toMatch(/; this one came as text\/plain\.$/);
  });

  it("says that a body came without a Content-Type header", async () => {
    const { post } = await setUp();
    const res = await post("/v1/discover", '{"query":"send"}', { "content-type": "" });
    expect(refusal(res)).toEqual({
      status: 415,
      code: "unsupported_media_type",
      message:
        "The request body must be JSON, sent with the header 'Content-Type: application/json'; this one came without a Content-Type header.",
    });
  });

  // It said only "The request body is not valid JSON.": an agent that put a raw line break
  // in a string, or stopped short, had nothing to go on.
  it("says where a body stops being JSON, and why when it can tell, never quoting it", async () => {
    const { post } = await setUp();
    const json = { "content-type": "application/json" };
    const cases: [string, string][] = [
      [
        '{"skill_id":"test.echo","params":{"text":"a\nb"}}',
        "The request body is not valid JSON: a control character (a line break or tab) at line 1, column 44, inside a string, must be escaped (\\n, \\t).",
      ],
      [
        '{"query":',
        "The request body is not valid JSON: it ends before the JSON does (a quote, ] or } missing).",
      ],
      [
        '{\n  "query": "x",\n}',
        'The request body is not valid JSON: unexpected "}" at line 3, column 1 (after a trailing comma).',
      ],
      [
        "{'query':'x'}",
        "The request body is not valid JSON: a member's name, in double quotes, was expected at line 1, column 2.",
      ],
      [
        "{\"query\":'x'}",
        `The request body is not valid JSON: unexpected "'" at line 1, column 10 (JSON takes double quotes).`,
      ],
      ['{"query":"x"} {}', 'The request body is not valid JSON: unexpected "{" at line 1, column 15.'],
    ];
    for (const [body, message] of cases) {
      expect(refusal(await post("/v1/execute", body, json)), body).toEqual({
        status: 400,
        code: "invalid_request",
        message,
      });
    }
    // A character that is part of a word is not repeated: it may belong to a secret.
    const word = refusal(await post("/v1/discover", '{"query": sk_live_x}', json));
    expect(word.message).toBe("The request body is not valid JSON: unexpected text at line 1, column 11.");
  });

  it("tells a POST without a body that its body is missing, with or without a Content-Type", async () => {
    const { post } = await setUp();
    for (const url of ["/v1/discover", "/v1/execute"]) {
      for (const headers of [{}, { "content-type": "application/json" }] as Record<string, string>[]) {
        expect(refusal(await post(url, undefined, headers)), url).toEqual({
          status: 400,
          code: "invalid_request",
          message: `The request body is empty: POST ${url} takes a JSON object, sent with the header 'Content-Type: application/json'.`,
        });
      }
      // Only whitespace is no body either (it was told the JSON had ended too soon).
      const blank = await post(url, " \n\t", { "content-type": "application/json" });
      expect(refusal(blank).message).toMatch(/^The request body is empty: /);
    }
  });
});
