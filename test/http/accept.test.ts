import { describe, expect, it } from "vitest";
import { prefersEventStream } from "../../src/http/accept.js";

// Audit 25 #1: `POST /v1/execute` streamed for any Accept naming text/event-stream with
// q > 0, even one that preferred JSON.
describe("prefersEventStream (POST /v1/execute's choice of a stream over the record)", () => {
  it("is true only when text/event-stream weighs more than every range matching application/json", () => {
    const verdicts = Object.fromEntries(
      [
        "text/event-stream",
        "TEXT/Event-Stream ; q=0.5",
        "text/event-stream, application/json;q=0.9",
        "text/event-stream;q=0.2, text/html",
        "text/event-stream, */*;q=0.1",
        "application/json, text/event-stream",
        "text/event-stream, application/json",
        "text/event-stream;q=0.5, application/*;q=0.5",
        "text/event-stream;q=0.5, */*",
        "text/event-stream;q=0",
        "text/event-stream;q=0.000",
        "text/*",
        "*/*",
        "",
        "application/json",
      ].map((accept) => [accept, prefersEventStream(accept)]),
    );
    expect(verdicts).toEqual({
      "text/event-stream": true,
      "TEXT/Event-Stream ; q=0.5": true,
      "text/event-stream, application/json;q=0.9": true,
      "text/event-stream;q=0.2, text/html": true,
      "text/event-stream, */*;q=0.1": true,
      "application/json, text/event-stream": false,
      "text/event-stream, application/json": false,
      "text/event-stream;q=0.5, application/*;q=0.5": false,
      "text/event-stream;q=0.5, */*": false,
      "text/event-stream;q=0": false,
      "text/event-stream;q=0.000": false,
      "text/*": false,
      "*/*": false,
      "": false,
      "application/json": false,
    });
    expect(prefersEventStream(undefined)).toBe(false);
  });

  it("takes the most specific range matching JSON, and ignores a range whose weight is malformed", () => {
    expect(prefersEventStream("text/event-stream;q=0.5, application/json;q=0.1, */*")).toBe(true);
    expect(prefersEventStream("text/event-stream;q=0.5, application/*;q=0.9, */*;q=0.1")).toBe(false);
    // A weight of 2 is no weight: that range is not read as preferring JSON.
    expect(prefersEventStream("text/event-stream, application/json;q=2")).toBe(true);
    expect(prefersEventStream("text/event-stream;q=abc")).toBe(false);
  });
});
