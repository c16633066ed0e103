import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { type Agent, request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AddressPolicy, publicAddressesOnly, refuseHost } from "../../skills/lib/address-policy.js";
import {
  AddressRefusedError,
  createGuardedAgent,
  createGuardedLookup,
  type Resolver,
} from "../../skills/lib/guarded-agent.js";
import {
  type FetchDependencies,
  type FetchRequest,
  fetchFollowingRedirects,
  type SendResult,
} from "../../skills/lib/http-fetch.js";
import { SkillError } from "../../src/core/skills/skill.js";

/** A GET that follows up to 5 redirects and gives up after 5 s. */
function get(url: string): FetchRequest {
  return {
    url,
    method: "GET",
    headers: {},
    maxBytes: 10_000,
    maxRedirects: 5,
    followRedirects: true,
    signal: AbortSignal.timeout(5000),
    responseEncoding: "text",
  };
}

describe("publicAddressesOnly", () => {
  it.each([
    ["10.0.0.1", "a private address"],
    ["172.16.5.4", "a private address"],
    ["192.168.1.1", "a private address"],
    ["127.0.0.1", "a loopback address"],
    ["127.255.0.9", "a loopback address"],
    ["169.254.169.254", "a cloud metadata address"],
    ["168.63.129.16", "a cloud metadata address"],
    ["::ffff:168.63.129.16", "mapped to 168.63.129.16, a cloud metadata address"],
    ["169.254.1.1", "a link-local address"],
    ["100.64.0.1", "a carrier-grade NAT (shared) address"],
    ["0.0.0.0", "an unspecified address"],
    ["255.255.255.255", "a broadcast address"],
    ["224.0.0.1", "a multicast address"],
    ["192.0.2.1", "a reserved address"],
    ["240.0.0.1", "a reserved address"],
    ["::1", "a loopback address"],
    ["::", "an unspecified address"],
    ["fe80::1", "a link-local address"],
    ["fc00::1", "a unique-local (private) address"],
    ["fd00:ec2::254", "a cloud metadata address"],
    ["ff02::1", "a multicast address"],
    ["::ffff:127.0.0.1", "mapped to 127.0.0.1, a loopback address"],
    ["::ffff:10.0.0.1", "mapped to 10.0.0.1, a private address"],
    ["::ffff:169.254.169.254", "mapped to 169.254.169.254, a cloud metadata address"],
    ["::7f00:1", "an IPv4-compatible address"],
    ["::a00:1", "an IPv4-compatible address"],
    ["2002:7f00:1::", "a special-purpose address (6to4)"],
    ["64:ff9b::a00:1", "a special-purpose address (rfc6052)"],
    ["2001:db8::1", "a reserved address"],
  ])("refuses %s as %s", (address, reason) => {
    expect(publicAddressesOnly(address)).toBe(reason);
  });

  it.each(["8.8.8.8", "1.1.1.1", "93.184.215.14", "2606:4700:4700::1111", "::ffff:8.8.8.8"])(
    "allows %s",
    (address) => {
      expect(publicAddressesOnly(address)).toBeUndefined();
    },
  );
});

describe("refuseHost after URL parsing", () => {
  const hostOf = (url: string) => new URL(url).hostname;

  it.each([
    ["http://2130706433/", "refused: 127.0.0.1 is a loopback address"],
    ["http://0x7f.1/", "refused: 127.0.0.1 is a loopback address"],
    ["http://0x7f000001/", "refused: 127.0.0.1 is a loopback address"],
    ["http://017700000001/", "refused: 127.0.0.1 is a loopback address"],
    ["http://127.1/", "refused: 127.0.0.1 is a loopback address"],
    ["http://[::ffff:127.0.0.1]/", "refused: ::ffff:7f00:1 is mapped to 127.0.0.1, a loopback address"],
    ["http://[0:0:0:0:0:ffff:a00:1]/", "refused: ::ffff:a00:1 is mapped to 10.0.0.1, a private address"],
    ["http://[::127.0.0.1]/", "refused: ::7f00:1 is an IPv4-compatible address"],
    ["http://localhost./", "refused: localhost. is a loopback name"],
    ["http://api.localhost/", "refused: api.localhost is a loopback name"],
    ["http://169.254.169.254/", "refused: 169.254.169.254 is a cloud metadata address"],
  ])("refuses %s", (url, message) => {
    expect(refuseHost(hostOf(url), publicAddressesOnly)).toBe(message);
  });

  it("leaves ordinary names to the check after DNS resolution", () => {
    expect(refuseHost(hostOf("https://example.com/"), publicAddressesOnly)).toBeUndefined();
  });
});

function resolverOf(table: Record<string, string[]>): Resolver {
  return async (hostname) => {
    const addresses = table[hostname];
    if (!addresses)
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };
}

function lookupOnce(
  policy: AddressPolicy,
  resolver: Resolver,
  hostname: string,
  all: boolean,
): Promise<{ err: Error | null; address: unknown; family?: number }> {
  return new Promise((resolve) => {
    createGuardedLookup(policy, resolver)(hostname, { all }, (err, address, family) =>
      resolve({ err, address, family }),
    );
  });
}

describe("guarded DNS lookup", () => {
  const resolver = resolverOf({
    "evil.test": ["10.0.0.1"],
    "mixed.test": ["93.184.215.14", "127.0.0.1"],
    "public.test": ["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"],
  });

  it("refuses a name that resolves to a private address, without saying which address", async () => {
    const { err } = await lookupOnce(publicAddressesOnly, resolver, "evil.test", false);
    expect(err).toBeInstanceOf(AddressRefusedError);
    expect(err?.message).toBe("refused: evil.test resolves to an address that is not public");
  });

  it("refuses a name when any of its addresses is private", async () => {
    const { err } = await lookupOnce(publicAddressesOnly, resolver, "mixed.test", true);
    expect(err?.message).toBe("refused: mixed.test resolves to an address that is not public");
  });

  it("passes public addresses on in both callback forms", async () => {
    expect(await lookupOnce(publicAddressesOnly, resolver, "public.test", true)).toEqual({
      err: null,
      address: [
        { address: "93.184.215.14", family: 4 },
        { address: "2606:2800:21f:cb07:6820:80da:af6b:8b2c", family: 6 },
      ],
      family: undefined,
    });
    expect(await lookupOnce(publicAddressesOnly, resolver, "public.test", false)).toEqual({
      err: null,
      address: "93.184.215.14",
      family: 4,
    });
  });

  it("passes resolution failures through", async () => {
    const { err } = await lookupOnce(publicAddressesOnly, resolver, "missing.test", false);
    expect((err as NodeJS.ErrnoException).code).toBe("ENOTFOUND");
  });
});

describe("guarded agent and redirects against a real server", () => {
  let server: http.Server;
  let port: number;
  const agents: Agent[] = [];
  /** Allows only the test server's address, so anything else counts as "private". */
  const onlyTestServer: AddressPolicy = (address) =>
    address === "127.0.0.1" ? undefined : "not allowed in this test";
  const names = resolverOf({ "app.test": ["127.0.0.1"], "internal.test": ["127.0.0.3"] });

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const url = new URL(req.url ?? "/", "http://local");
      if (url.pathname === "/redirect") {
        res.writeHead(302, { location: url.searchParams.get("to") ?? "/" });
        res.end();
        return;
      }
      res.end(`hello from ${req.headers.host}`);
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    server.closeAllConnections();
    server.close();
    await Promise.all(agents.map((agent) => agent.close()));
  });

  async function dependencies(policy: AddressPolicy): Promise<FetchDependencies> {
    const agent = await createGuardedAgent(policy, names);
    agents.push(agent);
    return { policy, send: (url, options) => request(url, { ...options, dispatcher: agent }) };
  }

  it("connects through the guarded lookup when the resolved address is allowed", async () => {
    const response = await fetchFollowingRedirects(
      get(`http://app.test:${port}/`),
      await dependencies(onlyTestServer),
    );
    expect(response).toMatchObject({ status: 200, body: `hello from app.test:${port}` });
  });

  it("refuses a name resolving to a private address at connection time", async () => {
    const refusal = fetchFollowingRedirects(
      get(`http://app.test:${port}/`),
      await dependencies(publicAddressesOnly),
    );
    await expect(refusal).rejects.toThrow(
      new SkillError("refused: app.test resolves to an address that is not public"),
    );
  });

  it("re-checks a redirect to a literal address that the policy refuses", async () => {
    const target = `http://127.0.0.2:${port}/`;
    const refusal = fetchFollowingRedirects(
      get(`http://127.0.0.1:${port}/redirect?to=${encodeURIComponent(target)}`),
      await dependencies(onlyTestServer),
    );
    await expect(refusal).rejects.toThrow("refused: 127.0.0.2 is not allowed in this test");
  });

  it("re-checks a redirect to a name that resolves to a refused address", async () => {
    const target = `http://internal.test:${port}/`;
    const refusal = fetchFollowingRedirects(
      get(`http://127.0.0.1:${port}/redirect?to=${encodeURIComponent(target)}`),
      await dependencies(onlyTestServer),
    );
    await expect(refusal).rejects.toThrow("refused: internal.test resolves to an address that is not public");
  });
});

describe("redirect loop with an injected sender", () => {
  function response(statusCode: number, headers: Record<string, string>, text = ""): SendResult {
    const body = {
      async dump() {},
      destroy() {},
      async *[Symbol.asyncIterator]() {
        if (text) yield Buffer.from(text);
      },
    };
    return { statusCode, headers, body: body as unknown as SendResult["body"] };
  }

  it("refuses a redirect from a public host to a private address without contacting it", async () => {
    const contacted: string[] = [];
    const dependencies: FetchDependencies = {
      policy: publicAddressesOnly,
      async send(url) {
        contacted.push(url.href);
        return response(302, { location: "http://10.0.0.1/admin" });
      },
    };
    const refusal = fetchFollowingRedirects(get("https://public.example/"), dependencies);
    await expect(refusal).rejects.toThrow("refused: 10.0.0.1 is a private address");
    expect(contacted).toEqual(["https://public.example/"]);
  });

  it("refuses a redirect to another scheme", async () => {
    const dependencies: FetchDependencies = {
      policy: publicAddressesOnly,
      send: async () => response(301, { location: "file:///etc/passwd" }),
    };
    const refusal = fetchFollowingRedirects(get("https://public.example/"), dependencies);
    await expect(refusal).rejects.toThrow("refused: only http and https URLs are allowed, not file");
  });
});
