import { randomBytes } from "node:crypto";
import { once } from "node:events";
import http from "node:http";
import https from "node:https";
import net, { type AddressInfo } from "node:net";
import {
  type BrotliCompress,
  brotliCompressSync,
  createBrotliCompress,
  createDeflate,
  type Deflate,
  deflateRawSync,
  deflateSync,
  gzipSync,
  constants as zlibConstants,
} from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpRequest } from "../../skills/http-request.js";
import { fakeContext } from "./fake-context.js";
import { expectSkillError, runSkill } from "./run-skill.js";

const allowPrivate = () => fakeContext({ config: { allowPrivateNetworks: true } });

const COMPRESSORS: Record<string, (bytes: Buffer) => Buffer> = {
  gzip: (bytes) => gzipSync(bytes),
  deflate: (bytes) => deflateSync(bytes),
  br: (bytes) => brotliCompressSync(bytes),
};
/** 256 MiB of zeros, compressed to a few hundred KiB: a decompression bomb. */
const BOMB_BYTES = 256 * 1024 * 1024;
let gzipBomb: Buffer;
let brotliBomb: Buffer;
/** Random bytes, which no compression shrinks. */
const INCOMPRESSIBLE = randomBytes(100_000);
/** The eight bytes every PNG file starts with, several of them invalid in UTF-8. */
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * "hello", compressed, then padding that decodes to nothing, again and again: empty gzip
 * members (a gzip body may hold several), empty stored deflate blocks that are not the
 * last, empty brotli metadata blocks.
 */
const PADDED_HELLO: Record<string, { start: () => Promise<Buffer>; padding: Buffer }> = {
  gzip: { start: async () => gzipSync("hello"), padding: gzipSync(Buffer.alloc(0)) },
  deflate: {
    start: () => flushed(createDeflate(), zlibConstants.Z_SYNC_FLUSH, "hello"),
    padding: Buffer.from([0, 0, 0, 0xff, 0xff]),
  },
  br: {
    start: () => flushed(createBrotliCompress(), zlibConstants.BROTLI_OPERATION_FLUSH, "hello"),
    padding: Buffer.from([0x06]),
  },
};

/** `text` compressed and flushed to a byte boundary, the stream not ended. */
async function flushed(compressor: Deflate | BrotliCompress, kind: number, text: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  compressor.on("data", (chunk: Buffer) => chunks.push(chunk));
  compressor.write(text);
  await new Promise<void>((resolve) => compressor.flush(kind, resolve));
  compressor.destroy();
  return Buffer.concat(chunks);
}

let server: http.Server;
let base: string;
let port: number;

beforeAll(async () => {
  const zeros = Buffer.alloc(BOMB_BYTES);
  gzipBomb = gzipSync(zeros, { level: 9 });
  // Quality 5: the default (11) takes seconds over 256 MiB for no smaller a bomb worth having.
  brotliBomb = brotliCompressSync(zeros, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 5 } });
  server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://local");
    switch (url.pathname) {
      case "/big":
        res.end("x".repeat(100_000));
        return;
      case "/exact":
        res.end("y".repeat(1000));
        return;
      case "/slow":
        return; // never answers
      case "/redirect":
        res.writeHead(Number(url.searchParams.get("status") ?? 302), {
          location: url.searchParams.get("to") ?? "/",
        });
        res.end("moved");
        return;
      case "/loop":
        res.writeHead(302, { location: "/loop" });
        res.end();
        return;
      case "/loop-with-key":
        res.writeHead(302, { location: "/loop-with-key?api_key=LOOPSECRET&n=1" });
        res.end();
        return;
      case "/deflate-raw":
        // Raw DEFLATE labelled deflate, as some servers send it.
        res.setHeader("content-encoding", "deflate");
        res.end(deflateRawSync(Buffer.from("raw deflate, as fetch reads it")));
        return;
      case "/binary":
        res.end(Buffer.from([0, 1, 2, 253, 254, 255]));
        return;
      case "/png":
        res.setHeader("content-type", "image/png");
        res.end(PNG_SIGNATURE);
        return;
      case "/mislabelled":
        res.setHeader("content-type", "text/plain; charset=utf-8");
        res.end(PNG_SIGNATURE);
        return;
      case "/utf8":
        res.setHeader("content-type", "text/plain; charset=utf-8");
        res.end("aé€");
        return;
      case "/odd-headers":
        res.setHeader("__proto__", "x");
        res.setHeader("constructor", "y");
        res.end();
        return;
      case "/compressed": {
        // Compressed whatever the request asked for, as a misbehaving server would.
        const coding = url.searchParams.get("coding") ?? "gzip";
        const text = Buffer.from(url.searchParams.get("text") ?? "hello, compressed world");
        const encode = COMPRESSORS[coding] ?? ((bytes: Buffer) => bytes);
        res.setHeader("content-encoding", coding);
        res.setHeader("content-type", "text/plain; charset=utf-8");
        res.end(req.method === "HEAD" ? undefined : encode(text));
        return;
      }
      case "/bomb":
        res.setHeader("content-encoding", url.searchParams.get("coding") ?? "gzip");
        res.end(url.searchParams.get("coding") === "br" ? brotliBomb : gzipBomb);
        return;
      case "/padded": {
        // Sent until the client goes away: only a limit on what is downloaded ends it.
        const coding = url.searchParams.get("coding") ?? "gzip";
        const { start, padding } = PADDED_HELLO[coding] as (typeof PADDED_HELLO)[string];
        const block = Buffer.concat(
          Array.from({ length: Math.ceil(16_384 / padding.length) }, () => padding),
        );
        res.setHeader("content-encoding", coding);
        void start().then((first) => {
          res.write(first);
          const pump = () => {
            while (!res.destroyed && res.write(block)) {
              // Fill the socket until it pushes back, then wait for "drain".
            }
          };
          res.on("drain", pump);
          pump();
        });
        return;
      }
      case "/incompressible":
        res.setHeader("content-encoding", "gzip");
        res.end(gzipSync(INCOMPRESSIBLE));
        return;
      case "/huge-headers":
        res.setHeader("x-big", "a".repeat(20_000));
        res.end();
        return;
      case "/latin1":
        res.setHeader("content-type", "text/plain; charset=iso-8859-1");
        res.end(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
        return;
      default: {
        let body = "";
        req.setEncoding("utf8");
        req.on("data", (chunk: string) => {
          body += chunk;
        });
        req.on("end", () => {
          res.setHeader("content-type", "application/json");
          res.setHeader("x-test", "yes");
          res.end(JSON.stringify({ method: req.method, path: req.url, headers: req.headers, body }));
        });
      }
    }
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});

async function listen(other: http.Server | net.Server): Promise<string> {
  other.listen(0, "127.0.0.1");
  await once(other, "listening");
  return `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
}

afterAll(() => {
  server.closeAllConnections();
  server.close();
});

describe("http.request with the default configuration", () => {
  it("refuses the local test server", async () => {
    await expectSkillError(
      httpRequest,
      { url: `${base}/echo` },
      /^refused: 127\.0\.0\.1 is a loopback address$/,
    );
  });

  it.each([
    ["http://2130706433/", /refused: 127\.0\.0\.1 is a loopback address/],
    ["http://0x7f.1/", /refused: 127\.0\.0\.1 is a loopback address/],
    ["http://0177.0.0.1/", /refused: 127\.0\.0\.1 is a loopback address/],
    ["http://[::ffff:127.0.0.1]/", /refused: ::ffff:7f00:1 is mapped to 127\.0\.0\.1, a loopback address/],
    ["http://localhost./", /refused: localhost\. is a loopback name/],
    ["http://LOCALHOST:8080/", /refused: localhost is a loopback name/],
    ["http://169.254.169.254/latest/meta-data/", /refused: 169\.254\.169\.254 is a cloud metadata address/],
    ["http://[fd00:ec2::254]/", /refused: fd00:ec2::254 is a cloud metadata address/],
    ["http://10.0.0.1/", /refused: 10\.0\.0\.1 is a private address/],
    ["http://192.168.1.1/", /refused: 192\.168\.1\.1 is a private address/],
    ["http://100.64.0.1/", /refused: 100\.64\.0\.1 is a carrier-grade NAT/],
    ["http://[::1]/", /refused: ::1 is a loopback address/],
    ["http://0.0.0.0/", /refused: 0\.0\.0\.0 is an unspecified address/],
  ])("refuses %s", async (url, message) => {
    await expectSkillError(httpRequest, { url }, message);
  });

  it.each([
    ["file:///etc/passwd", /only http and https/],
    ["gopher://example.com/", /only http and https/],
    ["not a url", /Invalid URL/],
    ["http://user:pass@example.com/", /credentials in the URL/],
  ])("refuses %s", async (url, message) => {
    await expectSkillError(httpRequest, { url }, message);
  });

  // Audit 23, #7: the message, stored and shown with the record, quoted the key the record's
  // params mask (a missing scheme is a common mistake).
  it("quotes an invalid URL with its credentials masked", async () => {
    await expectSkillError(
      httpRequest,
      { url: "api.example.com/v1/items?api_key=SECRETQ2&page=2" },
      /^Invalid URL "api\.example\.com\/v1\/items\?api_key=\[redacted\]&page=2": give an absolute http:\/\/ or https:\/\/ URL$/,
    );
  });

  it("refuses a body on GET", async () => {
    await expectSkillError(
      httpRequest,
      { url: "https://example.com/", body: "x" },
      /GET request cannot have a body/,
    );
  });
});

describe("http.request with allowPrivateNetworks", () => {
  it("fetches the local server", async () => {
    const result = await runSkill(httpRequest, { url: `${base}/echo?a=1` }, allowPrivate());
    expect(result).toMatchObject({
      status: 200,
      truncated: false,
      url: `${base}/echo?a=1`,
      redirects: 0,
    });
    expect(result.headers).toMatchObject({ "content-type": "application/json", "x-test": "yes" });
    const echoed = JSON.parse(result.body as string);
    expect(echoed).toMatchObject({ method: "GET", path: "/echo?a=1", body: "" });
    expect(echoed.headers["user-agent"]).toBe("skillport-http-request/1.0");
    expect(result.bytes).toBe(Buffer.byteLength(result.body as string));
  });

  it("sends a JSON body with a JSON content type and the given headers", async () => {
    const result = await runSkill(
      httpRequest,
      { url: `${base}/echo`, method: "POST", body: '{"a":1}', headers: { "X-Token": "abc" } },
      allowPrivate(),
    );
    const echoed = JSON.parse(result.body as string);
    expect(echoed).toMatchObject({ method: "POST", body: '{"a":1}' });
    expect(echoed.headers).toMatchObject({ "content-type": "application/json", "x-token": "abc" });
  });

  it("sends a non-JSON body as text/plain", async () => {
    const result = await runSkill(
      httpRequest,
      { url: `${base}/echo`, method: "PUT", body: "hello" },
      allowPrivate(),
    );
    expect(JSON.parse(result.body as string).headers["content-type"]).toBe("text/plain; charset=utf-8");
  });

  it("stops reading at max_bytes and says the body was truncated", async () => {
    const result = await runSkill(httpRequest, { url: `${base}/big`, max_bytes: 1000 }, allowPrivate());
    expect(result).toMatchObject({ status: 200, truncated: true, truncated_by: "max_bytes", bytes: 1000 });
    expect(result.body).toBe("x".repeat(1000));
  });

  it("does not mark a body of exactly max_bytes as truncated", async () => {
    const result = await runSkill(httpRequest, { url: `${base}/exact`, max_bytes: 1000 }, allowPrivate());
    expect(result).toMatchObject({ truncated: false, truncated_by: null, bytes: 1000 });
  });

  it("times out after timeout_ms", async () => {
    const started = performance.now();
    await expectSkillError(
      httpRequest,
      { url: `${base}/slow`, timeout_ms: 200 },
      /timed out after 200 ms/,
      allowPrivate(),
    );
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it("stops when the execution's signal aborts", async () => {
    const controller = new AbortController();
    const ctx = fakeContext({ signal: controller.signal, config: { allowPrivateNetworks: true } });
    setTimeout(() => controller.abort(), 50);
    const started = performance.now();
    await expectSkillError(httpRequest, { url: `${base}/slow`, timeout_ms: 30_000 }, /aborted/, ctx);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it("follows a redirect and reports the final URL", async () => {
    const result = await runSkill(httpRequest, { url: `${base}/redirect?to=/echo` }, allowPrivate());
    expect(result).toMatchObject({ status: 200, url: `${base}/echo`, redirects: 1 });
  });

  it("turns a POST into a body-less GET on 303", async () => {
    const result = await runSkill(
      httpRequest,
      { url: `${base}/redirect?status=303&to=/echo`, method: "POST", body: "data" },
      allowPrivate(),
    );
    const echoed = JSON.parse(result.body as string);
    expect(echoed).toMatchObject({ method: "GET", body: "" });
    expect(echoed.headers["content-type"]).toBeUndefined();
  });

  it("keeps method and body on 307", async () => {
    const result = await runSkill(
      httpRequest,
      { url: `${base}/redirect?status=307&to=/echo`, method: "POST", body: "data" },
      allowPrivate(),
    );
    expect(JSON.parse(result.body as string)).toMatchObject({ method: "POST", body: "data" });
  });

  // Regression (audit 22, F11): only Authorization, Cookie and Proxy-Authorization were
  // dropped, so an X-Api-Key reached the host a redirect pointed to.
  it("sends only the caller's safe headers on when a redirect leaves the origin", async () => {
    const other = `http://localhost:${port}/echo`;
    const result = await runSkill(
      httpRequest,
      {
        url: `${base}/redirect?to=${encodeURIComponent(other)}`,
        headers: {
          Authorization: "Bearer secret",
          Cookie: "s=1",
          "X-Api-Key": "secret-key",
          "Private-Token": "secret-token",
          "X-Custom": "anything",
          Accept: "application/json",
          "Accept-Language": "fr",
          "User-Agent": "my-agent/2",
        },
      },
      allowPrivate(),
    );
    expect(result.url).toBe(other);
    const received = JSON.parse(result.body as string).headers;
    for (const name of ["authorization", "cookie", "x-api-key", "private-token", "x-custom"]) {
      expect(received[name], name).toBeUndefined();
    }
    expect(received).toMatchObject({
      accept: "application/json",
      "accept-language": "fr",
      "user-agent": "my-agent/2",
    });
  });

  it("keeps the body's Content-Type on a 307 to another origin", async () => {
    const other = `http://localhost:${port}/echo`;
    const result = await runSkill(
      httpRequest,
      {
        url: `${base}/redirect?status=307&to=${encodeURIComponent(other)}`,
        method: "POST",
        body: '{"a":1}',
        headers: { "X-Api-Key": "secret-key" },
      },
      allowPrivate(),
    );
    const echoed = JSON.parse(result.body as string);
    expect(echoed).toMatchObject({ method: "POST", body: '{"a":1}' });
    expect(echoed.headers["content-type"]).toBe("application/json");
    expect(echoed.headers["x-api-key"]).toBeUndefined();
  });

  it("keeps every header on a redirect within the origin", async () => {
    const result = await runSkill(
      httpRequest,
      { url: `${base}/redirect?to=/echo`, headers: { "X-Api-Key": "secret-key", Authorization: "Bearer a" } },
      allowPrivate(),
    );
    expect(JSON.parse(result.body as string).headers).toMatchObject({
      "x-api-key": "secret-key",
      authorization: "Bearer a",
    });
  });

  it("gives up after 5 redirects", async () => {
    await expectSkillError(
      httpRequest,
      { url: `${base}/loop` },
      /Too many redirects: more than 5/,
      allowPrivate(),
    );
  });

  it("quotes the URLs a server redirected to with their credentials masked", async () => {
    await expectSkillError(
      httpRequest,
      { url: `${base}/loop-with-key` },
      /^Too many redirects: more than 5, last to "\/loop-with-key\?api_key=\[redacted\]&n=1"$/,
      allowPrivate(),
    );
    await expectSkillError(
      httpRequest,
      { url: `${base}/redirect?to=${encodeURIComponent("http://[bad/?token=BADSECRET")}` },
      /^The server redirected to an invalid URL: "http:\/\/\[bad\/\?token=\[redacted\]"$/,
      allowPrivate(),
    );
  });

  it("returns the redirect itself when follow_redirects is false", async () => {
    const result = await runSkill(
      httpRequest,
      { url: `${base}/redirect?to=/echo`, follow_redirects: false },
      allowPrivate(),
    );
    expect(result).toMatchObject({ status: 302, body: "moved", redirects: 0 });
    expect((result.headers as Record<string, string>).location).toBe("/echo");
  });

  it("returns binary bodies as base64 on request", async () => {
    const result = await runSkill(
      httpRequest,
      { url: `${base}/binary`, response_encoding: "base64" },
      allowPrivate(),
    );
    expect(result.body).toBe(Buffer.from([0, 1, 2, 253, 254, 255]).toString("base64"));
  });

  // Regression: a header named __proto__ was assigned to a plain object and vanished.
  it("returns response headers named __proto__ and constructor like any other", async () => {
    const result = await runSkill(httpRequest, { url: `${base}/odd-headers` }, allowPrivate());
    const headers = result.headers as Record<string, string>;
    expect(Object.getOwnPropertyDescriptor(headers, "__proto__")?.value).toBe("x");
    expect(Object.getOwnPropertyDescriptor(headers, "constructor")?.value).toBe("y");
    expect(JSON.stringify(headers)).toContain('"__proto__":"x"');
  });

  it("decodes text with the declared charset", async () => {
    const result = await runSkill(httpRequest, { url: `${base}/latin1` }, allowPrivate());
    expect(result).toMatchObject({ body: "café", encoding: "text" });
  });

  // Audit 26 F12: a PNG came back as text with its invalid bytes replaced by U+FFFD, and
  // nothing in the result said so.
  describe("a binary body, by default", () => {
    it.each(["/png", "/binary", "/mislabelled"])(
      "comes back from %s as base64 of every byte, saying so in encoding",
      async (path) => {
        const result = await runSkill(httpRequest, { url: `${base}${path}` }, allowPrivate());
        const sent = path === "/binary" ? Buffer.from([0, 1, 2, 253, 254, 255]) : PNG_SIGNATURE;
        expect(result).toMatchObject({ encoding: "base64", bytes: sent.length });
        expect(Buffer.from(result.body as string, "base64").equals(sent)).toBe(true);
      },
    );

    it("still comes back as text when asked for text", async () => {
      const result = await runSkill(
        httpRequest,
        { url: `${base}/png`, response_encoding: "text" },
        allowPrivate(),
      );
      expect(result).toMatchObject({ encoding: "text" });
      expect(result.body).toContain("\uFFFD");
    });

    it("leaves JSON and text as text, a body cut inside a character included", async () => {
      expect(await runSkill(httpRequest, { url: `${base}/echo` }, allowPrivate())).toMatchObject({
        encoding: "text",
      });
      expect(await runSkill(httpRequest, { url: `${base}/utf8` }, allowPrivate())).toMatchObject({
        body: "aé€",
        encoding: "text",
      });
      // "aé€" is 61 c3a9 e282ac: four bytes end inside the euro sign.
      const cut = await runSkill(httpRequest, { url: `${base}/utf8`, max_bytes: 4 }, allowPrivate());
      expect(cut).toMatchObject({ encoding: "text", truncated: true, bytes: 4 });
      expect(cut.body).toMatch(/^aé/);
    });

    it("is described in response_encoding and the result's encoding", () => {
      expect(httpRequest.params.shape.response_encoding.description).toMatch(
        /^auto: text .* base64 for any other/,
      );
      expect(httpRequest.description).toMatch(
        /base64 for binary content such as images \(`encoding` says which\)/,
      );
    });
  });

  it("answers HEAD without a body", async () => {
    const result = await runSkill(httpRequest, { url: `${base}/echo`, method: "HEAD" }, allowPrivate());
    expect(result).toMatchObject({ status: 200, body: "", bytes: 0 });
  });

  it("reports a refused connection without internal detail", async () => {
    const closed = http.createServer();
    closed.listen(0, "127.0.0.1");
    await once(closed, "listening");
    const closedPort = (closed.address() as AddressInfo).port;
    closed.close();
    await once(closed, "close");
    await expectSkillError(
      httpRequest,
      { url: `http://127.0.0.1:${closedPort}/` },
      new RegExp(
        `^Request to http://127\\.0\\.0\\.1:${closedPort} failed: connection refused by 127\\.0\\.0\\.1:${closedPort}$`,
      ),
      allowPrivate(),
    );
  });

  it.each([
    [
      { "X-Bad": "a\r\nInjected: 1" },
      /^Header X-Bad: its value holds a line break \(character 2\), which a header value cannot carry: a header is one line/,
    ],
    [
      { "X-Name": "Zoë 😀" },
      /^Header X-Name: its value holds a character beyond U\+00FF \(outside Latin-1\) \(character 5\), .*percent-encode/,
    ],
    [{ "X-Nul": "a\u0000" }, /^Header X-Nul: its value holds the control character U\+0000 \(character 2\)/],
    [
      { "x y": "1" },
      /^A header name holds a colon or white space: give each header as a member whose name is/,
    ],
    [{ "Authorization: Bearer s3cr3t": "" }, /^A header name holds a colon or white space/],
    [{ é: "1" }, /^Header name "é" is not a valid HTTP header name: use ASCII letters, digits and/],
    [
      { "Transfer-Encoding": "chunked" },
      /^Header Transfer-Encoding is the connection's, which the client writes: leave it out/,
    ],
    [
      { Expect: "100-continue" },
      /^Header Expect is the connection's, .*Expect: 100-continue is not supported/,
    ],
    [{ "Content-Length": "ten" }, /^Header Content-Length is not a whole number: leave it out/],
  ])(
    "refuses the header %j, naming it and saying what to do, before any request",
    async (headers, message) => {
      const error = await expectSkillError(
        httpRequest,
        { url: `${base}/echo`, headers },
        message,
        allowPrivate(),
      );
      expect(error.message).not.toMatch(/s3cr3t|😀|Injected/);
    },
  );

  it.each(["gzip", "deflate", "br"])(
    "decompresses a %s body and drops the headers that described it",
    async (coding) => {
      const result = await runSkill(
        httpRequest,
        { url: `${base}/compressed?coding=${coding}&text=caf%C3%A9`, headers: { "Accept-Encoding": coding } },
        allowPrivate(),
      );
      expect(result).toMatchObject({ status: 200, body: "café", bytes: 5, truncated: false });
      expect(result.headers).not.toHaveProperty("content-encoding");
      expect(result.headers).not.toHaveProperty("content-length");
    },
  );

  // Audit 23, #12: browsers and fetch read raw DEFLATE under Content-Encoding: deflate.
  it("decompresses raw DEFLATE labelled deflate, as fetch does", async () => {
    const result = await runSkill(httpRequest, { url: `${base}/deflate-raw` }, allowPrivate());
    expect(result).toMatchObject({ status: 200, body: "raw deflate, as fetch reads it", truncated: false });
  });

  it("returns a decompressed body as base64 on request", async () => {
    const result = await runSkill(
      httpRequest,
      { url: `${base}/compressed?text=abc`, response_encoding: "base64" },
      allowPrivate(),
    );
    expect(result.body).toBe(Buffer.from("abc").toString("base64"));
  });

  it.each(["gzip", "br"])("stops a %s decompression bomb at max_bytes", async (coding) => {
    const started = performance.now();
    const result = await runSkill(httpRequest, { url: `${base}/bomb?coding=${coding}` }, allowPrivate());
    expect(result).toMatchObject({
      status: 200,
      truncated: true,
      truncated_by: "max_bytes",
      bytes: 1024 * 1024,
    });
    expect(performance.now() - started).toBeLessThan(5000);
  });

  // Left open in session 23: compressed bytes that decode to next to nothing were read, and
  // decoded, until timeout_ms, however much max_bytes allowed.
  it.each(["gzip", "deflate", "br"])(
    "stops downloading a %s body that decodes to next to nothing at max_bytes + 64 KiB",
    async (coding) => {
      const started = performance.now();
      const result = await runSkill(
        httpRequest,
        { url: `${base}/padded?coding=${coding}`, max_bytes: 1000, timeout_ms: 5000 },
        allowPrivate(),
      );
      expect(result).toMatchObject({
        status: 200,
        body: "hello",
        bytes: 5,
        truncated: true,
        truncated_by: "compressed_bytes",
      });
      expect(performance.now() - started).toBeLessThan(3000);
    },
  );

  it("reads a compressed body that compression could not shrink up to max_bytes, as any other", async () => {
    const whole = await runSkill(
      httpRequest,
      { url: `${base}/incompressible`, max_bytes: INCOMPRESSIBLE.length, response_encoding: "base64" },
      allowPrivate(),
    );
    expect(whole).toMatchObject({ truncated: false, truncated_by: null, bytes: INCOMPRESSIBLE.length });
    expect(whole.body).toBe(INCOMPRESSIBLE.toString("base64"));
    const cut = await runSkill(
      httpRequest,
      { url: `${base}/incompressible`, max_bytes: 1000 },
      allowPrivate(),
    );
    expect(cut).toMatchObject({ truncated: true, truncated_by: "max_bytes", bytes: 1000 });
  });

  it("answers HEAD with Content-Encoding without decoding an empty body", async () => {
    const result = await runSkill(httpRequest, { url: `${base}/compressed`, method: "HEAD" }, allowPrivate());
    expect(result).toMatchObject({ status: 200, body: "", bytes: 0 });
    expect((result.headers as Record<string, string>)["content-encoding"]).toBe("gzip");
  });

  it("refuses a content coding it cannot decode instead of returning its bytes as text", async () => {
    await expectSkillError(
      httpRequest,
      { url: `${base}/compressed?coding=zstd` },
      /compressed with "zstd", which http\.request cannot decode: send Accept-Encoding with gzip, deflate or br/,
      allowPrivate(),
    );
  });

  it("says so when a body is not what its Content-Encoding claims", async () => {
    const plain = http.createServer((_req, res) => {
      res.setHeader("content-encoding", "gzip");
      res.end("not gzip at all");
    });
    const plainBase = await listen(plain);
    try {
      await expectSkillError(
        httpRequest,
        { url: `${plainBase}/` },
        /the response body could not be decompressed: it is not what its Content-Encoding says, or it is damaged \(Z_DATA_ERROR\)$/,
        allowPrivate(),
      );
    } finally {
      plain.close();
    }
  });

  // Regression (audit 22, F12): every OpenSSL code was called a certificate problem.
  it("says the server does not speak TLS when https:// reaches a plain HTTP port", async () => {
    await expectSkillError(
      httpRequest,
      { url: `https://127.0.0.1:${port}/echo` },
      /did not answer with TLS; if it serves plain HTTP, use http:\/\/ \(ERR_SSL_WRONG_VERSION_NUMBER\)$/,
      allowPrivate(),
    );
  });

  it("says the server does not speak HTTP/1.1 when http:// reaches a TLS port", async () => {
    // The first bytes a TLS server sends: a handshake record with a ServerHello.
    const tls = net.createServer((socket) =>
      socket.once("data", () => socket.end(Buffer.from([0x16, 0x03, 0x03, 0x00, 0x4a, 0x02, 0, 0, 0x46]))),
    );
    const tlsBase = await listen(tls);
    try {
      await expectSkillError(
        httpRequest,
        { url: `${tlsBase}/` },
        /did not answer with HTTP\/1\.1; if it serves HTTPS, use https:\/\/$/,
        allowPrivate(),
      );
    } finally {
      tls.close();
    }
  });

  // Audit 23, #13: Node's https and openssl s_server close the connection without a byte.
  it("says to use https:// when http:// reaches a TLS server that closes the connection", async () => {
    // No certificate needed: a plain HTTP request fails before any handshake would.
    const tls = https.createServer({});
    const tlsBase = await listen(tls);
    try {
      await expectSkillError(
        httpRequest,
        { url: `${tlsBase}/` },
        /connection to 127\.0\.0\.1:\d+ closed before any response; if it serves HTTPS, use https:\/\/$/,
        allowPrivate(),
      );
    } finally {
      tls.close();
    }
  });

  it("names the header size limit when the response headers are too large", async () => {
    await expectSkillError(
      httpRequest,
      { url: `${base}/huge-headers` },
      /the response headers are larger than 16 KiB/,
      allowPrivate(),
    );
  });

  it("says to leave Content-Length out when it does not match the body", async () => {
    await expectSkillError(
      httpRequest,
      { url: `${base}/echo`, method: "POST", body: "héllo", headers: { "Content-Length": "5" } },
      /the Content-Length header does not match the body's length in bytes: leave Content-Length out/,
      allowPrivate(),
    );
  });

  it("validates the result against its own schema", async () => {
    const result = await httpRequest.run(httpRequest.params.parse({ url: `${base}/echo` }), allowPrivate());
    expect(httpRequest.result.safeParse(result).success).toBe(true);
  });
});
