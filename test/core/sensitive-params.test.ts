import { describe, expect, it } from "vitest";
import { z } from "zod";
import { httpRequest } from "../../skills/http-request.js";
import { builtinSkills } from "../../skills/index.js";
import { generateSecret, maskWorkingSecretsIn } from "../../src/core/keys/secret.js";
import { isCredentialName } from "../../src/core/skills/credential-names.js";
import { headerValueWithoutCredentials } from "../../src/core/skills/header-credentials.js";
import { SkillRegistry, toCatalogSkill } from "../../src/core/skills/registry.js";
import { notSensitive, redactedBySchema, sensitive } from "../../src/core/skills/sensitive-params.js";
import { defineSkill } from "../../src/core/skills/skill.js";
import { maskingWork, urlWithoutCredentials } from "../../src/core/skills/url-credentials.js";

describe("credential names", () => {
  it("are the headers and query members that carry credentials, however they are spelled", () => {
    for (const name of [
      "Authorization",
      "proxy-authorization",
      "Cookie",
      "Set-Cookie",
      "X-Api-Key",
      "api-key",
      "api_key",
      "apiKey",
      "APIKEY",
      "X-Auth-Token",
      "x-goog-api-key",
      "access_token",
      "accessToken",
      "token",
      "key",
      "password",
      "client_secret",
      "sig",
      "X-Hub-Signature-256",
      "X-Amz-Security-Token",
      "refresh_tokens",
      // Audit 26's notes: OpenWeatherMap's and HubSpot's keys, and versioned names.
      "appid",
      "hapikey",
      "X-Client-Secret-V2",
      "Api-Key-V2",
      "apiKeyV2",
      "X-Key2",
      "Authorization2",
    ]) {
      expect(isCredentialName(name), name).toBe(true);
    }
  });

  it("leave ordinary names alone", () => {
    for (const name of [
      "Accept",
      "Content-Type",
      "User-Agent",
      "page",
      "q",
      "monkey",
      "key_id",
      "tokenizer",
      "",
      "v2",
      "api-v2",
      "page2",
    ]) {
      expect(isCredentialName(name), name).toBe(false);
    }
  });
});

describe("urlWithoutCredentials", () => {
  it("masks the values of credential query members and the user's password, and keeps the rest as sent", () => {
    expect(
      urlWithoutCredentials("https://api.example.com/v1/items?api_key=abc123&page=2&Token=t0k#top"),
    ).toBe("https://api.example.com/v1/items?api_key=[redacted]&page=2&Token=[redacted]#top");
    expect(urlWithoutCredentials("https://bob:hunter2@example.com/x")).toBe(
      "https://bob:[redacted]@example.com/x",
    );
    expect(urlWithoutCredentials("https://ghp_abc@github.com/o/r.git")).toBe(
      "https://[redacted]@github.com/o/r.git",
    );
    // OAuth's implicit flow puts the token in the fragment; an encoded name is read decoded.
    expect(urlWithoutCredentials("https://app.example/cb#access_token=xyz&state=1")).toBe(
      "https://app.example/cb#access_token=[redacted]&state=1",
    );
    expect(urlWithoutCredentials("https://x.example/?api%5Fkey=abc&%ZZ=1")).toBe(
      "https://x.example/?api%5Fkey=[redacted]&%ZZ=1",
    );
    expect(urlWithoutCredentials("https://example.com/path?q=weather")).toBe(
      "https://example.com/path?q=weather",
    );
    expect(urlWithoutCredentials("not a url ?token=1")).toBe("not a url ?token=[redacted]");
  });

  // Audit 23, #8: only `scheme://user:password@` was masked, but URL parsers (and so
  // fetch) read user information in other forms too, and such a record kept the password.
  it("masks user information in every form a URL parser reads one", () => {
    for (const [url, masked] of [
      [" http://user:PW1@127.0.0.1:23871/", " http://user:[redacted]@127.0.0.1:23871/"],
      ["http:\\\\user:PW2@127.0.0.1/", "http:\\\\user:[redacted]@127.0.0.1/"],
      ["http:/user:PW3@127.0.0.1/", "http:/user:[redacted]@127.0.0.1/"],
      ["http:user:PW4@127.0.0.1/", "http:user:[redacted]@127.0.0.1/"],
      ["HTTPS://token5@example.com/", "HTTPS://[redacted]@example.com/"],
      // A password holding "@": parsers split at the last one of the authority.
      ["http://user:PW6@part@example.com/", "http://user:[redacted]@example.com/"],
      // A tab inside the scheme, which parsers drop: no form of the password is shown.
      ["ht\ttp://user:PW7@example.com/", "[redacted]"],
    ]) {
      expect(urlWithoutCredentials(url as string), url).toBe(masked);
    }
  });

  it("gives a masked URL back as it is", () => {
    for (const url of [
      "https://bob:hunter2@example.com/x?token=t",
      "http:/user:PW3@127.0.0.1/",
      "https://ghp_abc@github.com/o/r.git",
    ]) {
      const masked = urlWithoutCredentials(url);
      expect(urlWithoutCredentials(masked), url).toBe(masked);
    }
  });

  it("keeps an @ that is no user information, and masks members separated by ;", () => {
    expect(urlWithoutCredentials("mailto:bob@example.com")).toBe("mailto:bob@example.com");
    expect(urlWithoutCredentials("https://example.com/?to=bob@example.com")).toBe(
      "https://example.com/?to=bob@example.com",
    );
    expect(urlWithoutCredentials("https://example.com/?a=1;token=X&b=2")).toBe(
      "https://example.com/?a=1;token=[redacted]&b=2",
    );
  });

  // Left open in session 25: a URL nested in a query value was masked only when written as
  // it is; percent-encoded, as a URL in a query value is sent, it kept its credentials.
  it("masks the credentials of a percent-encoded URL nested in a query value, and keeps its escapes", () => {
    for (const [url, masked] of [
      [
        "https://api.example.com/login?next=%2Fx%3Ftoken%3DSECRET",
        "https://api.example.com/login?next=%2Fx%3Ftoken%3D[redacted]",
      ],
      [
        "https://api.example.com/login?next=https%3A%2F%2Fu%3APW%40h%2F%3Fapi_key%3DS",
        "https://api.example.com/login?next=https%3A%2F%2Fu%3A[redacted]%40h%2F%3Fapi_key%3D[redacted]",
      ],
      // The nested URL's members after the credential, its fragment, and the outer URL's members are kept.
      [
        "https://a.example/?next=%2Fcb%3Fpage%3D2%26access_token%3DS1%26x%3D1%23top&lang=en",
        "https://a.example/?next=%2Fcb%3Fpage%3D2%26access_token%3D[redacted]%26x%3D1%23top&lang=en",
      ],
      ["https://a.example/#state=%2Fcb%3Bsig%3ds2", "https://a.example/#state=%2Fcb%3Bsig%3d[redacted]"],
      // Encoded twice: a URL nested in a URL nested in the query.
      [
        "https://a.example/?next=%2Fauth%3Fredirect_uri%3D%252Fcb%253Ftoken%253DS3%2526p%253D1",
        "https://a.example/?next=%2Fauth%3Fredirect_uri%3D%252Fcb%253Ftoken%253D[redacted]%2526p%253D1",
      ],
    ]) {
      expect(urlWithoutCredentials(url as string), url).toBe(masked);
      // Still a URL, and what it holds reads masked once decoded.
      const next = new URL(masked as string).searchParams.get("next");
      if (next !== null) expect(next).not.toMatch(/S\d|SECRET|PW/);
      expect(urlWithoutCredentials(masked as string), masked).toBe(masked);
    }
  });

  it("keeps percent-encoded values that hold no credential as they were sent", () => {
    for (const url of [
      "https://a.example/?q=100%25&name=caf%C3%A9&next=%2Fhome%3Fpage%3D2",
      "https://a.example/?next=https%3A%2F%2Fb.example%2F%3Fto%3Dbob%2540example.com&note=token%20kept",
      "https://a.example/p%3Ftoken%3Dpath?x=1",
    ]) {
      expect(urlWithoutCredentials(url)).toBe(url);
    }
  });

  it("reads through four layers of percent-encoding, and masks a value escaped deeper whole", () => {
    const encoded = (text: string, layers: number): string =>
      layers === 0 ? text : encoded(encodeURIComponent(text), layers - 1);
    const nested = "/cb?token=DEEP&p=1";
    const fourLayers = urlWithoutCredentials(`https://a.example/?next=${encoded(nested, 4)}&x=1`);
    expect(fourLayers).toBe(
      `https://a.example/?next=${encoded("/cb?token=", 4)}[redacted]${encoded("&p=1", 4)}&x=1`,
    );
    for (const layers of [5, 9]) {
      expect(urlWithoutCredentials(`https://a.example/?next=${encoded(nested, layers)}&x=1`)).toBe(
        "https://a.example/?next=[redacted]&x=1",
      );
    }
  });

  // Decoding is done layer by layer, each a pass over the query: a hostile URL (many `%25`
  // layers, escapes that decode to URLs with users) must cost a fixed number of passes.
  it("reads a hostile percent-encoded URL a bounded number of times", () => {
    const workFor = (url: string): number => {
      maskingWork.parsed = 0;
      maskingWork.scanned = 0;
      maskingWork.decoded = 0;
      urlWithoutCredentials(url);
      return maskingWork.parsed + maskingWork.scanned + maskingWork.decoded;
    };
    for (const unit of [
      "%25",
      "%2525252540",
      "%252525253F",
      "ws:%5C%40",
      "ws:%255C%2540",
      "%3Ftoken%3D",
      "%253Ftoken%253Dx%2526",
      "a=%40&",
      "%2F%2F%40",
    ]) {
      const long = `https://a.example/?x=${unit.repeat(16384 / unit.length)}`;
      const half = `https://a.example/?x=${unit.repeat(8192 / unit.length)}`;
      const work = workFor(long);
      // Four layers decoded, the parses' shared budget, and a scan of each layer's values.
      expect(work, unit).toBeLessThanOrEqual(12 * long.length + 8192);
      expect(work, unit).toBeLessThanOrEqual(2.5 * workFor(half) + 8192);
    }
    // One value escaped thousands of times over: each layer read would decode it all again.
    const deep = (layers: number) => `https://a.example/?next=%${"25".repeat(layers)}3Ftoken%3DS`;
    expect(workFor(deep(8192))).toBeLessThanOrEqual(12 * deep(8192).length + 8192);
    expect(workFor(deep(8192))).toBeLessThanOrEqual(2.5 * workFor(deep(4096)) + 8192);
    expect(urlWithoutCredentials(deep(8192))).toBe("https://a.example/?next=[redacted]");
  });

  it("leaves header values that are no URL as they are", () => {
    for (const value of ["text/html; charset=utf-8", "session=abc; Path=/; HttpOnly", "max-age=0, private"]) {
      expect(urlWithoutCredentials(value)).toBe(value);
    }
  });
});

// Left open in session 23: a Link header was masked as one URL, so a credential value ran
// on to the next `&` or `;`: the `>` after it was lost, and a second link's query was read
// as the first's, its credential kept.
describe("headerValueWithoutCredentials", () => {
  it("masks each URL of a Link header and keeps its brackets, params and links", () => {
    expect(headerValueWithoutCredentials("link", '<https://x.example/y?token=abc>; rel="next"')).toBe(
      '<https://x.example/y?token=[redacted]>; rel="next"',
    );
    expect(
      headerValueWithoutCredentials(
        "link",
        '<https://api.example/items?page=2&access_token=T1>; rel="next", ' +
          '<https://api.example/items?access_token=T2&page=9>; rel="last"',
      ),
    ).toBe(
      '<https://api.example/items?page=2&access_token=[redacted]>; rel="next", ' +
        '<https://api.example/items?access_token=[redacted]&page=9>; rel="last"',
    );
    expect(headerValueWithoutCredentials("link", "<https://bob:PW@x.example/#access_token=F>;rel=x")).toBe(
      "<https://bob:[redacted]@x.example/#access_token=[redacted]>;rel=x",
    );
  });

  it("keeps quoted params whole, separators in them included, and masks a URL one holds", () => {
    expect(
      headerValueWithoutCredentials(
        "link",
        '<https://x.example/a?api_key=K1>; title="Page 2; of 9, <next> \\"b\\""; ' +
          'anchor="https://x.example/?sig=S1"; rel="next", <https://x.example/z?key=K2>',
      ),
    ).toBe(
      '<https://x.example/a?api_key=[redacted]>; title="Page 2; of 9, <next> \\"b\\""; ' +
        'anchor="https://x.example/?sig=[redacted]"; rel="next", <https://x.example/z?key=[redacted]>',
    );
  });

  it("masks a param named as a credential, quoted or not, and an unquoted URL param", () => {
    expect(
      headerValueWithoutCredentials(
        "link",
        '<https://x.example/>; token=S1; api_key="S2"; anchor=https://y.example/?a=1;sig=S3',
      ),
    ).toBe(
      '<https://x.example/>; token=[redacted]; api_key="[redacted]"; anchor=https://y.example/?a=1;sig=[redacted]',
    );
  });

  it("masks a Link cut short, and any other value as one URL", () => {
    expect(headerValueWithoutCredentials("link", "<https://x.example/?api_key=K")).toBe(
      "<https://x.example/?api_key=[redacted]",
    );
    expect(headerValueWithoutCredentials("location", "/end?access_token=T&x=1")).toBe(
      "/end?access_token=[redacted]&x=1",
    );
    expect(headerValueWithoutCredentials("set-cookie", "session=s1; Path=/; HttpOnly")).toBe(
      "session=s1; Path=/; HttpOnly",
    );
  });

  // Audit 24 (changes #4): a Link header was known by its first character, `<`; one that
  // started with a bare URL was masked as one URL, and a credential in it swallowed the
  // links after it.
  it("masks a Link header link by link by its name, whatever its first character", () => {
    expect(
      headerValueWithoutCredentials("Link", "https://a.example/?token=S9, <https://b.example/?token=S10>"),
    ).toBe("https://a.example/?token=[redacted], <https://b.example/?token=[redacted]>");
    expect(
      headerValueWithoutCredentials(
        "link",
        ' https://a.example/p?page=2&api_key=S1; rel=next, https://b.example/?access_token=S2#x, </c?sig=S3>; rel="last"',
      ),
    ).toBe(
      ' https://a.example/p?page=2&api_key=[redacted]; rel=next, https://b.example/?access_token=[redacted]#x, </c?sig=[redacted]>; rel="last"',
    );
  });

  it("shows no credential a bare URL in a Link holds, in any form", () => {
    for (const [link, masked] of [
      // A comma inside a URL's query value, and a `?`, are part of the value.
      ["https://a.example/?token=S1,S2?S3", "https://a.example/?token=[redacted]"],
      ["https://a.example/?x=1,token=S1", "https://a.example/?x=1,token=[redacted]"],
      ["https://a.example/?api%5Fkey=S1&q=1", "https://a.example/?api%5Fkey=[redacted]&q=1"],
      ["https://bob:S1@a.example/?x=1", "https://bob:[redacted]@a.example/?x=1"],
      // A password holding the separators of a Link, and a user with no password.
      ["https://bob:S1;S2,S3@a.example/", "https://bob:[redacted]@a.example/"],
      [
        '<https://x.example/>; rel=next, http:\\S1@a.example/; rel="a"',
        '<https://x.example/>; rel=next, http:\\[redacted]@a.example/; rel="a"',
      ],
      [
        '<https://x.example/?next=https://bob:S1@a.example/>; anchor="http://bob:S2@b.example/"',
        '<https://x.example/?next=https://bob:[redacted]@a.example/>; anchor="http://bob:[redacted]@b.example/"',
      ],
      ['<https://x.example/>; title="x&token=S1"', '<https://x.example/>; title="x&token=[redacted]"'],
      // A scheme-relative URL, which a client reads against the http(s) URL the header came with.
      [
        "<//bob:S1@a.example/p>; rel=next, //carl:S2@b.example/, <\\\\S3@c.example/>",
        "<//bob:[redacted]@a.example/p>; rel=next, //carl:[redacted]@b.example/, <\\\\[redacted]@c.example/>",
      ],
      // A tab inside a scheme, which parsers drop: no form of the password is shown.
      ["<https://x.example/>; rel=a, ht\ttps://bob:S1@a.example/", "<https://x.example/>; rel=a, [redacted]"],
      // An unclosed quote runs to the end, and what it holds is masked as text.
      [
        '<https://x.example/>; title="https://a.example/?a=1&token=S1',
        '<https://x.example/>; title="https://a.example/?a=1&token=[redacted]',
      ],
    ]) {
      expect(headerValueWithoutCredentials("link", link as string), link).toBe(masked);
    }
  });

  it("keeps what is no credential in a Link as it is", () => {
    for (const link of [
      '<https://x.example/?page=2>; rel="next"; title="Contact: bob@example.com"; type=text/html',
      "mailto:bob@example.com, <https://x.example/>; rel=author",
      '<https://x.example/>; token=""; rel=next',
    ]) {
      expect(headerValueWithoutCredentials("link", link)).toBe(link);
    }
  });

  it("masks a URL in the other headers that carry one, wherever it stands", () => {
    for (const [name, value, masked] of [
      [
        "location",
        "https://bob:S1@a.example/p?token=S2",
        "https://bob:[redacted]@a.example/p?token=[redacted]",
      ],
      ["location", "//bob:S1@a.example/p", "//bob:[redacted]@a.example/p"],
      ["content-location", "/items?api_key=S1&page=2", "/items?api_key=[redacted]&page=2"],
      [
        "refresh",
        "0; url=https://bob:S1@a.example/?token=S2",
        "0; url=https://bob:[redacted]@a.example/?token=[redacted]",
      ],
      ["Refresh", "5;URL='http://S1@a.example/'", "5;URL='http://[redacted]@a.example/'"],
      [
        "content-security-policy",
        "default-src 'self'; report-uri https://bob:S1@r.example/csp",
        "default-src 'self'; report-uri https://bob:[redacted]@r.example/csp",
      ],
      ["set-cookie", "session=s1; Path=/; HttpOnly", "session=s1; Path=/; HttpOnly"],
      ["content-type", "text/html; charset=utf-8", "text/html; charset=utf-8"],
    ]) {
      expect(headerValueWithoutCredentials(name as string, value as string), value).toBe(masked);
    }
  });

  // Audit 25 (changes #2): outside Link, a URL nested in a query value kept its token.
  it("masks the credential members of a URL nested in any header's URL, as in a Link's", () => {
    for (const [name, value, masked] of [
      [
        "location",
        "/login?next=https://app.example/cb?access_token=S1",
        "/login?next=https://app.example/cb?access_token=[redacted]",
      ],
      [
        "x-next",
        "https://a.example/?x=1 https://b.example/?token=S2",
        "https://a.example/?x=1 https://b.example/?token=[redacted]",
      ],
      [
        "refresh",
        "0; url=https://a.example/?next=/cb%3Fx%3D1#sig=S3",
        "0; url=https://a.example/?next=/cb%3Fx%3D1#sig=[redacted]",
      ],
      [
        "link",
        "<https://a.example/?next=https://b.example/?token=S4>; rel=next",
        "<https://a.example/?next=https://b.example/?token=[redacted]>; rel=next",
      ],
      ["set-cookie", "token=kept; Path=/?x", "token=kept; Path=/?x"],
    ]) {
      expect(headerValueWithoutCredentials(name as string, value as string), value).toBe(masked);
    }
  });

  // Audit 25 (changes #1): a value whose URLs hold an `@` the parser reads no user from
  // (`ws:\@ws:\@…`) cost a parse of the rest of it at each, so 16 KiB took 0.1 s of the
  // thread every request shares. The work is counted, not timed: it must grow with the
  // value's length, not with its square.
  it("reads each hostile value a bounded number of times, and shows nothing it might hold", () => {
    const workFor = (name: string, value: string): number => {
      maskingWork.parsed = 0;
      maskingWork.scanned = 0;
      maskingWork.decoded = 0;
      headerValueWithoutCredentials(name, value);
      return maskingWork.parsed + maskingWork.scanned + maskingWork.decoded;
    };
    for (const unit of [
      "ws:\\@",
      "http:\\@",
      "http:x\\@",
      "a:\\@",
      "h\tttp:@x ",
      "http://@",
      ",token=",
      " //@",
    ]) {
      for (const name of ["location", "link"]) {
        const long = unit.repeat(16384 / unit.length);
        const work = workFor(name, long);
        expect(work, `${JSON.stringify(unit)} in ${name}`).toBeLessThanOrEqual(8 * long.length + 8192);
        expect(work, `${JSON.stringify(unit)} in ${name}`).toBeLessThanOrEqual(
          2.5 * workFor(name, unit.repeat(8192 / unit.length)) + 8192,
        );
      }
    }
    // Past what a value may cost, the rest of it is masked whole: what came before is kept.
    const cut = headerValueWithoutCredentials(
      "location",
      `https://bob:S1@a.example/ ${"ws:\\@".repeat(4096)}`,
    );
    expect(cut).toMatch(/^https:\/\/bob:\[redacted\]@a\.example\/ (ws:\\@)*\[redacted\]$/);
  });

  it("gives a masked Link back as it is", () => {
    const masked = headerValueWithoutCredentials(
      "link",
      '<https://x.example/?token=t>; rel="next"; title="a, b"',
    );
    expect(headerValueWithoutCredentials("link", masked)).toBe(masked);
  });
});

describe("redactedBySchema", () => {
  const catalogParams = toCatalogSkill(httpRequest).params;

  it("masks http.request's credential headers and URL query values and nothing else", () => {
    const params = catalogParams.parse({
      url: "https://api.example.com/?api_key=k1&q=1",
      headers: { Authorization: "Bearer ghp_abc", "X-Api-Key": "k2", Accept: "application/json" },
      body: '{"password":"kept: bodies are not marked"}',
    });
    expect(redactedBySchema(catalogParams, params)).toEqual({
      ...(params as object),
      url: "https://api.example.com/?api_key=[redacted]&q=1",
      headers: { Authorization: "[redacted]", "X-Api-Key": "[redacted]", Accept: "application/json" },
    });
    // A new value: the params the run gets are untouched.
    expect((params as { headers: Record<string, string> }).headers.Authorization).toBe("Bearer ghp_abc");
  });

  it("finds marks under wrappers, in nested objects and in arrays", () => {
    const schema = z.object({
      password: sensitive(z.string(), "value").optional(),
      wrapped: sensitive(z.string(), "value").nullable().default(null),
      accounts: z.array(z.object({ name: z.string(), pin: sensitive(z.string(), "value") })),
      plain: z.string(),
    });
    const params = schema.parse({
      password: "p",
      wrapped: "w",
      accounts: [{ name: "a", pin: "1234" }],
      plain: "x",
    });
    expect(redactedBySchema(schema, params)).toEqual({
      password: "[redacted]",
      wrapped: "[redacted]",
      accounts: [{ name: "a", pin: "[redacted]" }],
      plain: "x",
    });
    expect(redactedBySchema(schema, schema.parse({ wrapped: null, accounts: [], plain: "x" }))).toEqual({
      wrapped: null,
      accounts: [],
      plain: "x",
    });
  });

  // Audit 24 (code #7): each of these made a new schema the mark was not on, so the value was kept in clear.
  it("keeps a mark through what is chained after it", () => {
    const chained = {
      described: sensitive(z.string(), "value").describe("A token"),
      checked: sensitive(z.string(), "value").min(1).trim(),
      refined: sensitive(z.string(), "value").refine((value) => value !== "x"),
      annotated: sensitive(z.string(), "value").meta({ title: "Secret" }),
      "wrapped, then described": sensitive(z.string(), "value").optional().describe("An optional token"),
    };
    // One member each: a schema with no other mark is where a lost one showed.
    for (const [how, member] of Object.entries(chained)) {
      const schema = z.object({ secret: member, plain: z.string().describe("Not a secret") });
      expect(redactedBySchema(schema, { secret: "s3cret", plain: "p" }), how).toEqual({
        secret: "[redacted]",
        plain: "p",
      });
    }
    const listed = z.object({ urls: sensitive(z.string(), "url").array().describe("URLs") });
    expect(redactedBySchema(listed, { urls: ["https://x.example/?token=t&q=1"] })).toEqual({
      urls: ["https://x.example/?token=[redacted]&q=1"],
    });
  });

  it("keeps a param declared notSensitive as it is, chained or not", () => {
    const schema = z.object({ key: notSensitive(z.string()).describe("An entry's name") });
    expect(redactedBySchema(schema, { key: "user:ann" })).toEqual({ key: "user:ann" });
  });

  it("finds marks on the values of a record", () => {
    const schema = z.object({ headers: z.record(z.string(), sensitive(z.string(), "url")), n: z.number() });
    expect(
      redactedBySchema(schema, {
        headers: { location: "https://x.example/?token=t&q=1", server: "s" },
        n: 1,
      }),
    ).toEqual({ headers: { location: "https://x.example/?token=[redacted]&q=1", server: "s" }, n: 1 });
  });

  it("masks http.request's result URL and the URLs in its response headers, and nothing else", () => {
    const result = {
      status: 301,
      headers: {
        location: "https://api.example.com/v1?api_key=k1&page=2",
        link: '<https://api.example.com/v1?page=3&api_key=k1>; rel="next", <https://api.example.com/v1?page=1>; rel="first"',
        "set-cookie": "session=s1; Path=/; HttpOnly",
        "content-type": "text/plain",
      },
      body: '{"api_key":"k1"}',
      truncated: false,
      bytes: 16,
      url: "http://api.example.com/v1?api_key=k1&page=2",
      redirects: 0,
    };
    expect(redactedBySchema(httpRequest.result, result)).toEqual({
      ...result,
      headers: {
        ...result.headers,
        location: "https://api.example.com/v1?api_key=[redacted]&page=2",
        link: '<https://api.example.com/v1?page=3&api_key=[redacted]>; rel="next", <https://api.example.com/v1?page=1>; rel="first"',
      },
      url: "http://api.example.com/v1?api_key=[redacted]&page=2",
    });
  });

  // Left open in session 25: the url param and the final URL were masked by a rule of their
  // own that did not look into a URL nested in a query value, while a Location header was.
  it("masks a URL nested in http.request's url param and final URL as in its Location header", () => {
    const url =
      "https://api.example.com/login?next=https://app.example/cb?access_token=S1&back=%2Fcb%3Ftoken%3DS2";
    const masked =
      "https://api.example.com/login?next=https://app.example/cb?access_token=[redacted]&back=%2Fcb%3Ftoken%3D[redacted]";
    expect(redactedBySchema(catalogParams, catalogParams.parse({ url }))).toMatchObject({ url: masked });
    const result = {
      status: 302,
      headers: { location: url },
      body: "",
      truncated: false,
      truncated_by: null,
      bytes: 0,
      url,
      redirects: 0,
    };
    expect(redactedBySchema(httpRequest.result, result)).toEqual({
      ...result,
      headers: { location: masked },
      url: masked,
    });
  });

  it("keeps the mark out of the JSON Schema agents read", () => {
    expect(JSON.stringify(toCatalogSkill(httpRequest).paramsSchema)).not.toContain("sensitive");
  });
});

describe("maskWorkingSecretsIn", () => {
  const secret = generateSecret("production");

  it("masks working skillport secrets in every string, and keeps what JSON keeps", () => {
    const value = JSON.parse(
      `{"__proto__":{"a":1},"list":["x ${secret} y",2,null],"pasted":"sk_live_${secret}","nested":{"deep":"${secret}"}}`,
    ) as Record<string, unknown>;
    const masked = maskWorkingSecretsIn(value);
    expect(JSON.stringify(masked)).not.toContain(secret);
    expect(Object.hasOwn(masked, "__proto__")).toBe(true);
    expect(masked).toEqual(
      JSON.parse(
        '{"__proto__":{"a":1},"list":["x sk_[redacted] y",2,null],"pasted":"sk_live_sk_[redacted]","nested":{"deep":"sk_[redacted]"}}',
      ),
    );
  });

  // Audit 23 (changes #1): the log's looser rule rewrote ordinary words and merged members.
  it("leaves ordinary words, member names, other services' keys and broken secrets as they are", () => {
    const value = {
      columns: ["risk_test_1", "risk_test_2", "task_dev_owner", "DISK_TEST_PATH"],
      rows: [{ risk_test_1: 10, risk_test_2: 20 }],
      stripe: "sk_test_51Habcdefghijklmnopqrstuvwxyz0123456789",
      truncated: secret.slice(0, -1),
      mistyped: `${secret.slice(0, -1)}${secret.endsWith("A") ? "B" : "A"}`,
      [secret]: "a member named like a secret keeps its name",
    };
    expect(maskWorkingSecretsIn(value)).toBe(value);
  });

  it("gives back the value itself when it holds no secret", () => {
    const value = { text: "nothing here, 50% of it", list: [1, "two", "sk_other"] };
    expect(maskWorkingSecretsIn(value)).toBe(value);
    expect(maskWorkingSecretsIn(null)).toBe(null);
  });
});

/** A skill with these params and result, for the registration checks. */
function skillWith(params: z.ZodObject, result: z.ZodObject = z.object({ ok: z.boolean() })) {
  return defineSkill({
    id: "test.marks",
    title: "Marks",
    description: "Takes whatever the test gives it.",
    tags: [],
    params,
    result,
    annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
    examples: [],
    run: async () => ({ ok: true }),
  });
}

// Audit 24 (code #7): a credential left unmarked, or marked where masking does not look,
// was kept in clear without a word; a skill's registration, at start-up, now refuses it.
describe("a skill's registration", () => {
  it("refuses a param named like a credential that is not marked, naming the skill and the param", () => {
    expect(() => new SkillRegistry([skillWith(z.object({ token: z.string().describe("A token") }))])).toThrow(
      'Skill test.marks: params.token is named like a credential but not marked: wrap its schema in sensitive(schema, "value" | "entries" | "url" | "headers"), or in notSensitive(schema) if it carries none',
    );
    expect(() =>
      toCatalogSkill(
        skillWith(z.object({ accounts: z.array(z.object({ name: z.string(), api_key: z.string() })) })),
      ),
    ).toThrow(/params\.accounts\[\]\.api_key is named like a credential but not marked/);
  });

  it("accepts a param named like a credential that is marked, holds a mark, or is declared notSensitive", () => {
    const params = z.object({
      token: sensitive(z.string(), "value").describe("A token"),
      auth: z.object({ user: z.string(), password: sensitive(z.string(), "value") }),
      key: notSensitive(z.string()).describe("The name of an entry"),
      session_keys: notSensitive(z.array(z.string())).optional(),
    });
    expect(() => toCatalogSkill(skillWith(params))).not.toThrow();
  });

  it("does not ask a result to mark what is named like a credential: it may be a credential the skill made", () => {
    expect(() => toCatalogSkill(skillWith(z.object({}), z.object({ token: z.string() })))).not.toThrow();
  });

  it("refuses a mark masking does not look at, in params or a result, and says where it is", () => {
    expect(() =>
      toCatalogSkill(
        skillWith(z.object({ url: sensitive(z.string(), "url").or(z.number()).describe("A URL") })),
      ),
    ).toThrow(
      "Skill test.marks: params.url is marked sensitive inside the union at params.url, which masking does not look into: mark the union as a whole",
    );
    expect(() =>
      toCatalogSkill(
        skillWith(z.object({}), z.object({ pair: z.tuple([z.string(), sensitive(z.string(), "url")]) })),
      ),
    ).toThrow("result.pair is marked sensitive inside the tuple at result.pair");
    expect(() =>
      toCatalogSkill(
        skillWith(z.object({ options: notSensitive(z.object({ pin: sensitive(z.string(), "value") })) })),
      ),
    ).toThrow("params.options.pin is marked sensitive under params.options, which is declared notSensitive");
  });

  // Audit 25 (changes #7): the retired "header" mark registered without a word, and the
  // member it marked then vanished from the record.
  it("refuses a mark that names no sensitivity, naming the skill and the member", () => {
    const retired = "header" as Parameters<typeof sensitive>[1];
    expect(() =>
      toCatalogSkill(skillWith(z.object({}), z.object({ location: sensitive(z.string(), retired) }))),
    ).toThrow(
      'Skill test.marks: result.location is marked sensitive as "header", which is no sensitivity: use "value", "entries", "url" or "headers"',
    );
    expect(() => new SkillRegistry([skillWith(z.object({ url: sensitive(z.string(), retired) }))])).toThrow(
      /params\.url is marked sensitive as "header"/,
    );
  });

  it("accepts every built-in skill", () => {
    expect(() => new SkillRegistry(builtinSkills)).not.toThrow();
  });
});
