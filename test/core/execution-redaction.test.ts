import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { cryptoHash } from "../../skills/crypto-hash.js";
import { httpRequest } from "../../skills/http-request.js";
import { timeConvert } from "../../skills/time-convert.js";
import { systemClock } from "../../src/core/clock.js";
import { newRecord } from "../../src/core/execution/new-record.js";
import type { ApiKey } from "../../src/core/keys/api-key.js";
import { generateSecret } from "../../src/core/keys/secret.js";
import { sensitive } from "../../src/core/skills/sensitive-params.js";
import { defineSkill } from "../../src/core/skills/skill.js";
import { makeCore } from "./make-core.js";
import { latch, latchReleases } from "./test-skills.js";

/** Marked as the params of the skills that take credentials are. */
const credentialParams = z.object({
  url: sensitive(z.string(), "url"),
  headers: sensitive(z.record(z.string(), z.string()), "entries"),
  password: sensitive(z.string(), "value"),
  note: z.string(),
});

/** Marks its params as the skills that take credentials do, and answers what it was given. */
const credentials = defineSkill({
  id: "test.credentials",
  title: "Credentials",
  description: "Returns the params it ran with.",
  tags: [],
  params: credentialParams,
  result: z.object({ received: z.record(z.string(), z.unknown()) }),
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false, lightAsyncIo: true },
  examples: [],
  run: async (params) => ({ received: params }),
});

/**
 * Marks its params as a skill's author writes them: the skill rules ask for a description
 * on every param, so `.describe()` is chained after `sensitive`, and a check often is.
 */
const chained = defineSkill({
  id: "test.chained-marks",
  title: "Chained marks",
  description: "Checks a token and a passphrase, and answers whether it got them.",
  tags: [],
  params: z.object({
    token: sensitive(z.string(), "value").describe("The token to check"),
    passphrase: sensitive(z.string(), "value")
      .min(8)
      .optional()
      .describe("The passphrase, 8 characters or more"),
    note: z.string().describe("Anything, kept as sent"),
  }),
  result: z.object({ ok: z.boolean() }),
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false, lightAsyncIo: true },
  examples: [],
  run: async () => ({ ok: true }),
});

/** `test.credentials` that runs until the test releases its `note` (`latchReleases`). */
const heldCredentials = defineSkill({
  ...credentials,
  id: "test.credentials-held",
  params: credentialParams,
  title: "Held credentials",
  description: "Returns the params it ran with, once released.",
  async run(params, ctx) {
    await new Promise<void>((resolve) => {
      latchReleases.set(params.note, resolve);
      ctx.signal.addEventListener("abort", () => resolve(), { once: true });
    });
    return { received: params };
  },
});

const whole = {
  url: "https://api.example.com/items?token=plainsecret123&page=2",
  headers: { Authorization: "Bearer ghp_abcdefSECRET", Accept: "application/json" },
  password: "hunter2",
  note: "kept as sent",
};
const redacted = {
  url: "https://api.example.com/items?token=[redacted]&page=2",
  headers: { Authorization: "[redacted]", Accept: "application/json" },
  password: "[redacted]",
  note: "kept as sent",
};

// Audit 22, security #1: every execution's params were stored verbatim for the retention
// period and printed on the dashboard, `http.request`'s Authorization header and any
// skillport secret an agent passed included. Params are now kept whole only while the
// execution may still start; its terminal record keeps a redacted copy.
describe("what an execution keeps of the credentials it was given", () => {
  let core: Awaited<ReturnType<typeof makeCore>>;
  let key: ApiKey;
  const skills = [httpRequest, timeConvert, credentials, chained, heldCredentials, latch];
  const stored = async (id: string) => core.skillport.store.executions.get(id);

  beforeEach(async () => {
    core = await makeCore(skills, { clock: systemClock, asyncConcurrency: 1 });
    key = await core.keyFor();
  });
  afterEach(async () => {
    for (const release of latchReleases.values()) release();
    await core.cleanup();
  });

  it("stores a terminal record's params without http.request's credential headers, URL query values or skillport secrets", async () => {
    const secret = generateSecret("production");
    const { record } = await core.run(key, "http.request", {
      url: `http://127.0.0.1:1/?api_key=${secret}&token=plainsecret123&page=2`,
      method: "POST",
      headers: { Authorization: "Bearer ghp_abcdefSECRET", "X-Api-Key": secret, "X-Note": `see ${secret}` },
      body: `{"forwarded":"${secret}"}`,
    });
    expect(record).toMatchObject({ status: "failed", error: { code: "execution_failed" } });
    const kept = await stored(record.id);
    expect(kept?.params).toMatchObject({
      url: "http://127.0.0.1:1/?api_key=[redacted]&token=[redacted]&page=2",
      headers: { Authorization: "[redacted]", "X-Api-Key": "[redacted]", "X-Note": "see sk_[redacted]" },
      body: '{"forwarded":"sk_[redacted]"}',
      method: "POST",
    });
    const text = JSON.stringify(kept);
    for (const leak of [secret, "ghp_abcdefSECRET", "plainsecret123"]) expect(text).not.toContain(leak);
  });

  it("stores and answers an error message that quotes a skillport secret with the secret masked", async () => {
    const secret = generateSecret("staging");
    const { record } = await core.run(key, "time.convert", { time: secret, to_timezone: "UTC" });
    expect(record.status).toBe("failed");
    expect(record.error?.message).toContain("sk_[redacted]");
    expect(JSON.stringify(record)).not.toContain(secret);
    expect(JSON.stringify(await stored(record.id))).not.toContain(secret);
    expect(JSON.stringify(await core.skillport.queries.get(key, record.id))).not.toContain(secret);
  });

  // Audit 24 (code #7): the mark lived on the schema `sensitive` was given, and what was
  // chained after it (`.describe()`, `.min()`) made a new, unmarked one: the token was
  // stored in clear and shown on the dashboard.
  it("keeps a param redacted when its mark has a description or a check chained after it", async () => {
    const params = { token: "ghp_chainedSECRET", passphrase: "correct horse", note: "kept as sent" };
    const { record } = await core.run(key, "test.chained-marks", params);
    expect(record.status).toBe("completed");
    const kept = { token: "[redacted]", passphrase: "[redacted]", note: "kept as sent" };
    expect((await stored(record.id))?.params).toEqual(kept);
    expect((await core.skillport.queries.getAny(record.id)).params).toEqual(kept);
  });

  // Audit 23 (changes #1): masking by the log's looser rule rewrote `risk_test_1` and merged
  // two columns into one, and turned a stored Stripe test key into sk_[redacted].
  it("answers and keeps a result as the skill gave it, but for working skillport secrets", async () => {
    const secret = generateSecret("development");
    const note = {
      url: "https://api.example.com/?page=2",
      headers: {},
      password: "x",
      note: `risk_test_1 risk_test_2 sk_test_51Habcdefghijklmnopqrstuvwxyz0123 ${secret}`,
    };
    const { record } = await core.run(key, "test.credentials", note);
    expect(record.status).toBe("completed");
    const expected = `risk_test_1 risk_test_2 sk_test_51Habcdefghijklmnopqrstuvwxyz0123 sk_[redacted]`;
    expect(record.result).toMatchObject({ received: { note: expected } });
    expect((await stored(record.id))?.record.result).toMatchObject({ received: { note: expected } });
  });

  it("runs a queued execution with its params whole, and keeps them redacted once it ended", async () => {
    await core.run(key, "test.latch", { label: "hold" }, { async: true });
    const { record } = await core.run(key, "test.credentials", whole, { async: true });
    expect(record.status).toBe("queued");
    // The store holds what the run needs, whichever runner takes it…
    expect((await stored(record.id))?.params).toEqual(whole);
    // …and the dashboard shows it without the credentials all the same.
    expect((await core.skillport.queries.getAny(record.id)).params).toEqual(redacted);
    expect((await core.skillport.queries.listAll({ limit: 10 })).data[0]?.params).toEqual(redacted);

    await vi.waitFor(() => expect(latchReleases.has("hold")).toBe(true));
    latchReleases.get("hold")?.();
    const ended = await core.skillport.queries.get(key, record.id, 5_000);
    expect(ended).toMatchObject({ status: "completed", result: { received: whole } });
    expect((await stored(record.id))?.params).toEqual(redacted);
  });

  it("runs a queued execution taken over after a restart with its params whole", async () => {
    // On SQLite: the restarted core opens the file the first one left.
    await core.cleanup();
    const first = await makeCore(skills, { store: "sqlite", clock: systemClock, asyncConcurrency: 1 });
    core = first;
    key = await core.keyFor();
    await core.run(key, "test.latch", { label: "hold" }, { async: true });
    const { record } = await core.run(key, "test.credentials", whole, { async: true });
    // Stopping leaves it queued in the store, for the next process to run.
    await core.skillport.stop(100);
    expect(await stored(record.id)).toMatchObject({ record: { status: "queued" }, params: whole });
    await core.skillport.close();

    core = await makeCore(skills, {
      store: "sqlite",
      clock: systemClock,
      dir: first.dir,
      asyncConcurrency: 1,
    });
    const ended = await core.skillport.queries.get(key, record.id, 5_000);
    expect(ended).toMatchObject({ status: "completed", result: { received: whole } });
    expect((await stored(record.id))?.params).toEqual(redacted);
  });

  it("keeps a queued execution cancelled before it started redacted", async () => {
    await core.run(key, "test.latch", { label: "hold" }, { async: true });
    const { record } = await core.run(key, "test.credentials", whole, { async: true });
    expect((await core.skillport.queries.cancel(key, record.id)).status).toBe("cancelled");
    expect((await stored(record.id))?.params).toEqual(redacted);
  });

  describe("while it runs", () => {
    const secret = generateSecret("production");
    const sent = (note: string) => ({ ...whole, headers: { ...whole.headers, "X-Api-Key": secret }, note });
    const shown = (note: string) => ({
      ...redacted,
      headers: { ...redacted.headers, "X-Api-Key": "[redacted]" },
      note,
    });

    /**
     * Waits until the held run `note` runs, then checks every copy of its record: as the
     * store keeps it (what every process on the store reads), as the API answers it, as its
     * event stream begins, and as the dashboard shows it. Then releases it, and checks that
     * the run had the params whole and that its terminal record keeps them masked.
     */
    const observeRunning = async (
      note: string,
      ended: Promise<{ record: { id: string } }>,
      id: () => string,
    ) => {
      await vi.waitFor(() => expect(latchReleases.has(note)).toBe(true));
      // A sync run's record is saved alongside its start, not before: wait for the commit.
      const kept = await vi.waitFor(async () => {
        const found = await stored(id());
        expect(found?.record.status).toBe("running");
        return found;
      });
      expect(kept?.params).toEqual(shown(note));
      const read = await core.skillport.queries.get(key, id());
      const events = core.skillport.queries.subscribe(key, id());
      const first = (await events.next()).value;
      await events.return(undefined);
      expect(first).toMatchObject({ type: "status", record: { status: "running" } });
      for (const copy of [kept, read, first, await core.skillport.queries.getAny(id())]) {
        const text = JSON.stringify(copy);
        for (const leak of [secret, "ghp_abcdefSECRET", "plainsecret123", "hunter2"])
          expect(text).not.toContain(leak);
      }
      latchReleases.get(note)?.();
      const { record } = await ended;
      const done = await core.skillport.queries.get(key, record.id, 5_000);
      // The run had them whole (the result masks working skillport secrets only).
      expect(done).toMatchObject({
        status: "completed",
        result: { received: { ...whole, headers: { ...whole.headers, "X-Api-Key": "sk_[redacted]" }, note } },
      });
      expect((await stored(record.id))?.params).toEqual(shown(note));
    };

    const execute = (note: string, extra: { async?: boolean; idempotencyKey?: string } = {}) => {
      let id = "";
      const ended = core.skillport.executions.execute(
        key,
        {
          skill_id: "test.credentials-held",
          params: sent(note),
          async: extra.async ?? false,
          timeout_ms: 30_000,
        },
        {
          idempotencyKey: extra.idempotencyKey,
          onCreated: (created) => {
            id = created;
          },
        },
      );
      return { ended, id: () => id };
    };

    it("keeps a sync execution's params without credentials from its start", async () => {
      const { ended, id } = execute("sync");
      await observeRunning("sync", ended, id);
    });

    it("keeps a sync execution stored before it starts (an Idempotency-Key) without credentials", async () => {
      const { ended, id } = execute("keyed", { idempotencyKey: "keyed-run" });
      await observeRunning("keyed", ended, id);
    });

    it("keeps an async execution's params whole while queued, and without credentials once it runs", async () => {
      const { ended, id } = execute("async", { async: true });
      expect((await ended).record.status).toBe("queued");
      await observeRunning("async", ended, id);
    });

    it("keeps a queued execution taken from a busy runner without credentials once it runs there", async () => {
      await core.cleanup();
      core = await makeCore(skills, { clock: systemClock, asyncConcurrency: 1, heartbeatMs: 50 });
      key = await core.keyFor();
      // Another process's runner, alive (it beats) and too busy to start what it queued.
      const busy = { id: "runner_busy", host: "another-host", pid: 1 };
      const beat = () => core.skillport.store.executions.heartbeat({ ...busy, heartbeatAt: Date.now() });
      await beat();
      const beating = setInterval(beat, 20);
      try {
        const queued = newRecord("test.credentials-held", Date.now() - 1_000, "queued");
        await core.skillport.store.executions.save({
          record: queued,
          owner: key.owner,
          keyId: key.id,
          params: sent("taken"),
          async: true,
          timeoutMs: 30_000,
          runnerId: busy.id,
        });
        const ended = vi.waitFor(
          async () => {
            const found = await stored(queued.id);
            expect(found?.record.status).toBe("completed");
            return { record: queued };
          },
          { timeout: 10_000 },
        );
        await observeRunning("taken", ended, () => queued.id);
        expect((await stored(queued.id))?.runnerId).toBe(core.skillport.runner.runnerId);
      } finally {
        clearInterval(beating);
      }
    });
  });

  it("answers an idempotent repeat from the first record, and tells a changed credential apart", async () => {
    const execute = (params: Record<string, unknown>) =>
      core.skillport.executions.execute(
        key,
        { skill_id: "test.credentials", params, async: false, timeout_ms: 5_000 },
        { idempotencyKey: "pay-once" },
      );
    const first = await execute(whole);
    expect(first.record.result).toEqual({ received: whole });
    expect((await stored(first.record.id))?.params).toEqual(redacted);

    const repeat = await execute(whole);
    expect(repeat).toMatchObject({ replayed: true, record: { id: first.record.id } });
    // Only the credential differs, and the stored params no longer show it: the request's
    // hash still tells the two requests apart.
    await expect(
      execute({ ...whole, headers: { ...whole.headers, Authorization: "Bearer other" } }),
    ).rejects.toMatchObject({ code: "idempotency_key_reused" });
  });
});

// Audit 23, #2 and #3: http.request's result repeated the url's `?api_key=` whole (stored,
// answered and shown beside the masked params), and crypto.hash's hmac_key, a webhook
// provider's signing secret, was kept as sent.
describe("what an execution keeps of the credentials its result repeats", () => {
  let core: Awaited<ReturnType<typeof makeCore>>;
  let key: ApiKey;
  let target: http.Server;
  let base: string;
  const stored = async (id: string) => core.skillport.store.executions.get(id);

  beforeAll(async () => {
    target = http.createServer((req, res) => {
      const url = new URL(req.url ?? "/", "http://local");
      if (url.pathname === "/moved") {
        // As an http:// to https:// redirect does: the same query, the key in it.
        res.writeHead(301, {
          location: `/end${url.search}`,
          "set-cookie": "session=s1; Path=/",
          // A paginated API's links, as many send them: the caller's query, key included, in each.
          link: `</end${url.search}&page=2>; rel="next", </end${url.search}&page=9>; rel="last"; title="9; the last"`,
        });
        res.end();
        return;
      }
      if (url.pathname === "/bare-link") {
        res.writeHead(200, {
          // A Link that does not follow RFC 8288: its first URL without brackets.
          link: `${base}/end${url.search}, </end${url.search}&page=2>; rel="next"`,
          refresh: `0; url=http://user:${url.searchParams.get("access_token")}@127.0.0.1/end`,
        });
        res.end("ok");
        return;
      }
      res.end("ok");
    });
    target.listen(0, "127.0.0.1");
    await once(target, "listening");
    base = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    target.closeAllConnections();
    target.close();
  });
  beforeEach(async () => {
    core = await makeCore([httpRequest, cryptoHash], {
      clock: systemClock,
      skillConfig: { "http.request": { allowPrivateNetworks: true } },
    });
    key = await core.keyFor();
  });
  afterEach(async () => {
    await core.cleanup();
  });

  /** The record as the caller got it, as the store keeps it, and as any key of the owner reads it. */
  const everyCopy = async (record: { id: string }) => [
    record,
    (await stored(record.id))?.record,
    await core.skillport.queries.get(key, record.id),
  ];

  it("masks http.request's final URL in the record every caller gets", async () => {
    const { record } = await core.run(key, "http.request", { url: `${base}/moved?api_key=SECRETQ&x=1` });
    expect(record.status).toBe("completed");
    for (const copy of await everyCopy(record)) {
      expect(copy).toMatchObject({
        result: { status: 200, url: `${base}/end?api_key=[redacted]&x=1`, redirects: 1 },
      });
      expect(JSON.stringify(copy)).not.toContain("SECRETQ");
    }
  });

  it("masks a URL in a response header, and keeps a cookie the response sets", async () => {
    const { record } = await core.run(key, "http.request", {
      url: `${base}/moved?access_token=RUNTOKEN`,
      follow_redirects: false,
    });
    for (const copy of await everyCopy(record)) {
      expect(copy).toMatchObject({
        result: {
          status: 301,
          headers: {
            location: "/end?access_token=[redacted]",
            "set-cookie": "session=s1; Path=/",
            link:
              '</end?access_token=[redacted]&page=2>; rel="next", ' +
              '</end?access_token=[redacted]&page=9>; rel="last"; title="9; the last"',
          },
          url: `${base}/moved?access_token=[redacted]`,
        },
      });
      expect(JSON.stringify(copy)).not.toContain("RUNTOKEN");
    }
  });

  // Audit 24 (changes #4): a Link header that started with a bare URL was masked as one URL,
  // the credential in it running on over the links after it.
  it("masks a Link header link by link whatever its first character, and a URL inside another header", async () => {
    const { record } = await core.run(key, "http.request", {
      url: `${base}/bare-link?access_token=RUNTOKEN`,
    });
    for (const copy of await everyCopy(record)) {
      expect(copy).toMatchObject({
        result: {
          status: 200,
          headers: {
            link: `${base}/end?access_token=[redacted], </end?access_token=[redacted]&page=2>; rel="next"`,
            refresh: "0; url=http://user:[redacted]@127.0.0.1/end",
          },
        },
      });
      expect(JSON.stringify(copy)).not.toContain("RUNTOKEN");
    }
  });

  // Left open in session 25: the url param and the final URL kept the credential of a URL
  // nested in a query value, and a percent-encoded one was kept everywhere.
  it("masks a URL nested in the url param, percent-encoded or not, in the params, the final URL and a Location alike", async () => {
    const search = "?next=%2Fcb%3Ftoken%3DENCODED%26page%3D2&back=https://app.example/cb?access_token=PLAIN";
    const masked =
      "?next=%2Fcb%3Ftoken%3D[redacted]%26page%3D2&back=https://app.example/cb?access_token=[redacted]";
    for (const follow_redirects of [true, false]) {
      const { record } = await core.run(key, "http.request", {
        url: `${base}/moved${search}`,
        follow_redirects,
      });
      const kept = await stored(record.id);
      expect(kept?.params).toMatchObject({ url: `${base}/moved${masked}` });
      for (const copy of await everyCopy(record)) {
        expect(copy).toMatchObject(
          follow_redirects
            ? { result: { status: 200, url: `${base}/end${masked}`, redirects: 1 } }
            : {
                result: {
                  status: 301,
                  url: `${base}/moved${masked}`,
                  headers: { location: `/end${masked}` },
                },
              },
        );
        expect(JSON.stringify(copy)).not.toMatch(/ENCODED|PLAIN/);
      }
      expect(JSON.stringify(kept)).not.toMatch(/ENCODED|PLAIN/);
    }
  });

  it("keeps crypto.hash's hmac_key masked once the execution ended, and answers the right digest", async () => {
    const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const { record } = await core.run(key, "crypto.hash", {
      text: 'msg_p5jXN8AQM9LWM0D4loKWxJek.1614265330.{"test": 2432232314}',
      hmac_key: secret,
      hmac_key_encoding: "base64",
      output: "base64",
    });
    // The Standard Webhooks test vector's signature.
    expect(record.result).toMatchObject({ digest: "g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=" });
    const kept = await stored(record.id);
    expect(kept?.params).toMatchObject({ hmac_key: "[redacted]", hmac_key_encoding: "base64" });
    expect(JSON.stringify(kept)).not.toContain(secret);
    expect(JSON.stringify((await core.skillport.queries.getAny(record.id)).params)).not.toContain(secret);
  });
});
