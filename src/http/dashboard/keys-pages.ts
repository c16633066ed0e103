import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import { ServiceError } from "../../core/errors.js";
import type { KeyStatus } from "../../core/keys/api-key.js";
import { FIXED_KEY_FIELDS, KEY_ATTRIBUTES, keyFieldsInWords } from "../../core/keys/key-fields.js";
import { KEY_ORDERS, type KeyCounts } from "../../core/keys/key-listing.js";
import { type KeyService, type KeyView, limitsNote } from "../../core/keys/key-service.js";
import { badge, time } from "./format.js";
import { html, type SafeHtml } from "./html.js";
import { keyDetail } from "./key-detail.js";
import {
  type CreateKeyForm,
  type EditKeyForm,
  editKeyForm,
  editKeyValues,
  keyForm,
  readCreateKeyForm,
  readEditKeyForm,
} from "./key-form.js";
import { keysShownInWords } from "./key-list-words.js";
import { type KeySearch, keySearch, shownTerm, storeSearchOf } from "./key-search.js";
import { csrfField, type PageContext, page } from "./layout.js";
import { PageError } from "./page-error.js";
import type { Dashboard } from "./plugin.js";
import { searchTerm } from "./search-term.js";
import { type Reveal, SecretReveals } from "./secret-reveals.js";
import { formField } from "./session.js";
import { parseRange } from "./usage-page.js";

type IdParams = { Params: { id: string } };
type KeyDetailRequest = IdParams & { Querystring: { edited?: string } };

/** Keys on one page of the key list. */
const KEYS_PER_PAGE = 50;

/** Longest key search: a key's name has at most 100 characters, its other fields fewer. */
const KEY_SEARCH_MAX = 200;

/** The key list's status tabs: every key, or those of one status. */
const STATUS_FILTERS = ["all", "active", "revoked", "expired"] as const satisfies readonly (
  | "all"
  | KeyStatus
)[];
type StatusFilter = (typeof STATUS_FILTERS)[number];

const ListQuery = z.object({
  q: searchTerm(KEY_SEARCH_MAX),
  sort: z.enum(KEY_ORDERS).catch("created"),
  dir: z.enum(["asc", "desc"]).catch("desc"),
  status: z.enum(STATUS_FILTERS).catch("all"),
  // Where the page starts (a cursor of `KeyService.page`); the first page without one.
  cursor: z.string().max(1000).optional().catch(undefined),
});
type ListQuery = z.output<typeof ListQuery>;

/**
 * The key list's address parameters: `term` (never a secret: see `shownTerm`), the order,
 * the status shown and, past the first page, where the page starts.
 */
function listParams(
  term: string,
  view: { sort: string; dir: string; status: StatusFilter; cursor?: string },
): URLSearchParams {
  return new URLSearchParams({
    ...(term && { q: term }),
    sort: view.sort,
    dir: view.dir,
    ...(view.status !== "all" && { status: view.status }),
    ...(view.cursor && { cursor: view.cursor }),
  });
}

/** What one page of the key list shows: its keys, the cursors either side, and the counts of its search. */
interface KeyListPage {
  keys: KeyView[];
  previous: string | null;
  next: string | null;
  counts: KeyCounts;
  /** Whether there is any key at all, searched for or not. */
  anyKey: boolean;
}

const NO_KEYS: KeyCounts = { active: 0, revoked: 0, expired: 0 };
const total = (counts: KeyCounts) => counts.active + counts.revoked + counts.expired;
/** How many keys a status tab holds. */
const countIn = (counts: KeyCounts, status: StatusFilter) =>
  status === "all" ? total(counts) : counts[status];

/**
 * The page of keys `query` asks for, read a page at a time from the store with the
 * search, the status and the order applied there. A cursor this list did not give (an
 * edited address) is the first page: the list answers whatever its address holds.
 */
async function readKeyListPage(keys: KeyService, query: ListQuery, search: KeySearch): Promise<KeyListPage> {
  const storeSearch = storeSearchOf(search);
  // Counted on every view, not kept: a key created or revoked by any process sharing the
  // store, or expiring as time passes, changes the tabs, which must agree with the page.
  const counts = storeSearch ? await keys.counts(storeSearch) : NO_KEYS;
  const anyKey =
    total(counts) > 0 || (search.kind !== "all" && total(await keys.counts({ kind: "all" })) > 0);
  if (!storeSearch) return { keys: [], previous: null, next: null, counts, anyKey };
  const listing = {
    search: storeSearch,
    ...(query.status !== "all" && { status: query.status }),
    order: query.sort,
    descending: query.dir === "desc",
  };
  const page = await keys.page(listing, KEYS_PER_PAGE, query.cursor).catch((err: unknown) => {
    if (query.cursor !== undefined && err instanceof ServiceError && err.code === "invalid_request") {
      return keys.page(listing, KEYS_PER_PAGE);
    }
    throw err;
  });
  return { ...page, counts, anyKey };
}

/** Grace periods offered when rolling a key, in seconds. */
const GRACE_CHOICES: { seconds: number; label: string }[] = [
  { seconds: 0, label: "None: the old key stops now" },
  { seconds: 3600, label: "1 hour" },
  { seconds: 86_400, label: "24 hours" },
  { seconds: 7 * 86_400, label: "7 days" },
  { seconds: 30 * 86_400, label: "30 days" },
];

/** The API Keys section: list, create (secret shown once), detail, edit, revoke, roll. */
export function registerKeyPages(app: FastifyInstance, dashboard: Dashboard): void {
  const { keys } = dashboard.skillport;
  const reveals = new SecretReveals();
  /** The key an address names; an id no key has is a page not found. */
  const keyById = async (id: string) => {
    try {
      return await keys.get(id);
    } catch (err) {
      // The core refuses an unknown id as a bad argument (right for the CLI); in an address it is a missing page.
      if (err instanceof ServiceError && err.code === "invalid_request")
        throw new PageError(404, "Not found", err.message);
      throw err;
    }
  };
  /** Keeps a new secret for its page and redirects there (see SecretReveals). */
  const revealNext = (request: FastifyRequest, reply: FastifyReply, key: KeyView, reveal: Reveal) => {
    reveals.keep(sessionIdOf(request), key.id, reveal);
    return reply.redirect(`/dashboard/keys/${encodeURIComponent(key.id)}/secret`, 303);
  };

  /** The key list for a search; a secret that opens a key redirects to its page instead. */
  const answerSearch = async (request: FastifyRequest, reply: FastifyReply, query: ListQuery) => {
    const search = keySearch(query.q);
    if (search.kind === "secret") {
      const owner = await keys.findBySecret(search.secret);
      if (owner) return reply.redirect(`/dashboard/keys/${encodeURIComponent(owner.id)}`, 303);
    }
    const listed = await readKeyListPage(keys, query, search);
    return dashboard.send(
      reply,
      keyList(dashboard.context(request), listed, query, search, (key) => keys.statusOf(key)),
    );
  };

  // A search from an address (a sort link, a bookmark) or an older page's GET form.
  app.get("/keys", async (request, reply) =>
    answerSearch(request, reply, ListQuery.parse(request.query ?? {})),
  );

  // The search box posts, so that a pasted secret never reaches an address, where browser
  // history and a proxy's access log would keep it. A term safe to show is redirected to
  // its address (which can be bookmarked, and Back returns to); the others are answered here.
  app.post("/keys/search", async (request, reply) => {
    const query = ListQuery.parse(request.body ?? {});
    const search = keySearch(query.q);
    if (search.kind === "secret" || shownTerm(search, query.q) !== query.q) {
      return answerSearch(request, reply, query);
    }
    return reply.redirect(`/dashboard/keys?${listParams(query.q, query).toString()}`, 303);
  });

  app.get("/keys/new", async (request, reply) =>
    dashboard.send(reply, newKeyPage(dashboard.context(request), {}, new Map())),
  );

  app.post("/keys", async (request, reply) => {
    const ctx = dashboard.context(request);
    const form = readCreateKeyForm(request.body);
    try {
      const { key, secret } = await keys.create(form.input);
      const note = limitsNote(key.limits);
      return revealNext(request, reply, key, {
        secret,
        title: "Key created",
        ...(note && { note: html`${note}` }),
      });
    } catch (err) {
      if (!(err instanceof ServiceError) || err.code !== "invalid_request") throw err;
      return dashboard.send(reply, newKeyPage(ctx, form.values, form.errorsOf(err)), 400);
    }
  });

  // The page after creating or rolling a key: its secret, shown this once.
  app.get<IdParams>("/keys/:id/secret", async (request, reply) => {
    const ctx = dashboard.context(request);
    const key = await keyById(request.params.id);
    const reveal = reveals.take(sessionIdOf(request), key.id);
    if (!reveal) return dashboard.send(reply, secretGonePage(ctx, key), 410);
    return dashboard.send(reply, secretPage(ctx, key, reveal.secret, reveal.title, reveal.note));
  });

  app.get<KeyDetailRequest>("/keys/:id", async (request, reply) => {
    const key = await keyById(request.params.id);
    const range = parseRange(request.query);
    // After an edit (POST, then 303 here): a short confirmation above the key's details.
    const notice =
      request.query?.edited === undefined
        ? undefined
        : ["Changes saved.", limitsNote(key.limits)].join(" ").trim();
    return dashboard.send(reply, await keyDetail(dashboard, dashboard.context(request), key, range, notice));
  });

  /**
   * A form acting on an active key (edit, revoke, roll). A revoked or expired key, reached
   * by Back or a bookmark, gets a page saying so rather than a form the core would refuse.
   */
  const keyPage = (path: string, render: (ctx: PageContext, key: KeyView) => string) =>
    app.get<IdParams>(path, async (request, reply) => {
      const ctx = dashboard.context(request);
      const key = await keyById(request.params.id);
      const status = keys.statusOf(key);
      if (status !== "active") return dashboard.send(reply, inactiveKeyPage(ctx, key, status), 409);
      return dashboard.send(reply, render(ctx, key));
    });

  keyPage("/keys/:id/revoke", revokePage);
  app.post<IdParams>("/keys/:id/revoke", async (request, reply) => {
    const { key } = await keys.revoke(request.params.id);
    return reply.redirect(`/dashboard/keys/${encodeURIComponent(key.id)}`, 303);
  });

  keyPage("/keys/:id/edit", (ctx, key) => editPage(ctx, key, editKeyValues(key), new Map()));
  app.post<IdParams>("/keys/:id/edit", async (request, reply) => {
    const form = readEditKeyForm(request.body);
    try {
      const key = await keys.edit(request.params.id, form.input);
      return reply.redirect(`/dashboard/keys/${encodeURIComponent(key.id)}?edited=1`, 303);
    } catch (err) {
      // A field the core refused shows on the form; an unknown or inactive key is an error page.
      if (!(err instanceof ServiceError) || err.code !== "invalid_request" || !err.details) throw err;
      const key = await keys.get(request.params.id);
      return dashboard.send(
        reply,
        editPage(dashboard.context(request), key, form.values, form.errorsOf(err)),
        400,
      );
    }
  });

  /** The grace periods a key may be rolled with now: only those ending before it stops anyway. */
  const graceChoicesOf = (key: KeyView) => GRACE_CHOICES.filter((c) => keys.graceFits(key, c.seconds));
  app.get<IdParams>("/keys/:id/roll", async (request, reply) => {
    const ctx = dashboard.context(request);
    const key = await keyById(request.params.id);
    const status = keys.statusOf(key);
    if (status !== "active") return dashboard.send(reply, inactiveKeyPage(ctx, key, status), 409);
    // A key rolled before is not rolled again (KeyService.roll): the page says what to do instead.
    const replacement = await keys.replacementOf(key.id);
    if (replacement) return dashboard.send(reply, rolledKeyPage(ctx, key, replacement), 409);
    return dashboard.send(reply, rollPage(ctx, key, graceChoicesOf(key)));
  });

  app.post<IdParams>("/keys/:id/roll", async (request, reply) => {
    // The select sends digits; anything else (a form made by hand) chose no grace: an empty
    // one read as 0 ended the previous key at once, and other text was told "not NaN".
    const grace = formField(request, "grace_seconds");
    const graceSeconds = /^\d+$/.test(grace) ? Number(grace) : undefined;
    if (graceSeconds === undefined) {
      const key = await keyById(request.params.id);
      const chooseOne = "Choose how long the previous key keeps working, from the list.";
      return dashboard.send(
        reply,
        rollPage(dashboard.context(request), key, graceChoicesOf(key), chooseOne),
        400,
      );
    }
    const rolled = await keys.roll(request.params.id, { graceSeconds }).catch(async (err: unknown) => {
      // A grace the key no longer fits (it came nearer its end since the page was shown, or
      // an edited form): the form again, with why and the choices left, not a dead end. A
      // key rolled since the page was shown (another tab): what to do instead.
      if (!(err instanceof ServiceError) || err.code !== "invalid_request") throw err;
      const key = await keyById(request.params.id);
      if (keys.statusOf(key) !== "active") throw err;
      const ctx = dashboard.context(request);
      const replacement = await keys.replacementOf(key.id);
      if (replacement) return dashboard.send(reply, rolledKeyPage(ctx, key, replacement), 409);
      return dashboard.send(reply, rollPage(ctx, key, graceChoicesOf(key), err.message), 400);
    });
    if (!("secret" in rolled)) return rolled;
    const { key, secret, previous } = rolled;
    const old = html`The previous key <code>${previous.prefix}…${previous.last4}</code>`;
    const note =
      graceSeconds > 0
        ? html`${old} keeps working until ${time(previous.expiresAt)}.`
        : html`${old} no longer works.`;
    return revealNext(request, reply, key, { secret, title: "Key rolled", note });
  });
}

function keyList(
  ctx: PageContext,
  listed: KeyListPage,
  query: ListQuery,
  search: KeySearch,
  statusOf: (key: KeyView) => KeyStatus,
): string {
  const countOf = (status: StatusFilter) => countIn(listed.counts, status);
  const shown = listed.keys;
  const term = shownTerm(search, query.q);
  // Tabs keep the search and the order; each says how many keys it would show.
  const statusTabs = html`<nav class="tabs" aria-label="Key status">${STATUS_FILTERS.map((status) => {
    const params = listParams(term, { sort: query.sort, dir: query.dir, status });
    const label = status === "all" ? "All" : `${status[0]?.toUpperCase()}${status.slice(1)}`;
    return html`<a href="/dashboard/keys?${params.toString()}" data-status="${status}"${status === query.status ? html` aria-current="true"` : ""}>${label} <span class="muted">${countOf(status)}</span></a>`;
  })}</nav>`;
  const header = (column: string, label: string, extra = "") => {
    const active = query.sort === column;
    const dir = active && query.dir === "asc" ? "desc" : "asc";
    const params = listParams(term, { sort: column, dir, status: query.status });
    const sortState = active ? (query.dir === "asc" ? "ascending" : "descending") : "none";
    return html`<th scope="col" aria-sort="${sortState}" class="${extra}"><a href="/dashboard/keys?${params.toString()}">${label}<span class="sort-mark" aria-hidden="true">${active ? (query.dir === "asc" ? "▲" : "▼") : ""}</span></a></th>`;
  };
  const rows = shown.map((key) => {
    const status = statusOf(key);
    return html`<tr>
<td class="wrap"><a class="strong" href="/dashboard/keys/${key.id}">${key.name}</a>
<span class="sub"><span class="visually-hidden">Owner </span>${key.owner} · <span class="visually-hidden">environment </span>${key.environment}</span></td>
<td><code class="key-mask">${key.prefix}…${key.last4}</code></td>
<td class="hide-narrow">${key.scope}</td><td class="hide-narrow">${key.plan}</td>
<td class="hide-medium">${time(key.createdAt)}</td><td class="hide-narrow">${time(key.lastUsedAt, "never")}${
      // A client still calling with a revoked or expired key: the question after a revoke or roll.
      key.lastRefusedAt &&
      html`<span class="sub"><span class="visually-hidden">last </span>refused ${time(key.lastRefusedAt)}</span>`
    }</td>
<td>${badge(status)}${
      // A rolled key in its grace period is active like its replacement: its end tells them apart.
      status === "active" &&
      key.expiresAt !== null &&
      html`<span class="sub">until ${time(key.expiresAt)}</span>`
    }</td>
</tr>`;
  });
  const body = html`<form class="toolbar" method="post" action="/dashboard/keys/search" role="search">
  ${csrfField(ctx)}
  <label class="visually-hidden" for="key-search">Search keys</label>
  <input id="key-search" type="search" name="q" value="${term}" maxlength="${KEY_SEARCH_MAX}" placeholder="Search by name, owner, id, key prefix or secret">
  <input type="hidden" name="sort" value="${query.sort}"><input type="hidden" name="dir" value="${query.dir}"><input type="hidden" name="status" value="${query.status}">
  <button type="submit" class="button">Search</button>
  ${search.kind !== "all" && html`<a class="button button-quiet" href="/dashboard/keys">Clear</a>`}
</form>
${listed.anyKey && statusTabs}
${
  !listed.anyKey
    ? emptyKeys()
    : html`<div class="table-wrap panel flush"><table class="table" id="keys-table">
<caption class="visually-hidden">API keys, ${shown.length} shown</caption>
<thead><tr>${header("name", "Name")}<th scope="col">Key</th>${header("scope", "Scope", "hide-narrow")}${header("plan", "Plan", "hide-narrow")}${header("created", "Created", "hide-medium")}${header("last_used", "Last used", "hide-narrow")}${header("status", "Status")}</tr></thead>
<tbody>${rows.length > 0 ? rows : html`<tr><td colspan="7" class="muted center">${emptyPage(listed, query, search, term)}</td></tr>`}</tbody>
</table></div>
${pager(listed, query, search, term)}`
}`;
  return page(
    ctx,
    {
      title: "API Keys",
      section: "keys",
      lead: "Keys open the API (/v1 and /mcp). Each secret is shown once, when it is created; only its hash is kept.",
      actions: html`<a class="button button-primary" href="/dashboard/keys/new">Create key</a>`,
    },
    body,
  );
}

/** What an empty page of the list says: why it holds no key. */
function emptyPage(listed: KeyListPage, query: ListQuery, search: KeySearch, term: string): SafeHtml {
  const inTab = countIn(listed.counts, query.status);
  // Past the last key (an old address): the keys are there, from the first page.
  if (inTab > 0) {
    const first = listParams(term, { sort: query.sort, dir: query.dir, status: query.status });
    return html`No keys past this point. <a href="/dashboard/keys?${first.toString()}">Go to the first page</a>.`;
  }
  if (total(listed.counts) > 0) return html`No ${query.status} key${term && html` matches “${term}”`}.`;
  return noMatch(search, term);
}

/**
 * How many of the tab's keys the page shows, and links to the pages either side, which
 * keep the search, the tab and the order. A search the address cannot hold (it may be
 * part of a secret) has no further pages: its links would lose it.
 */
function pager(listed: KeyListPage, query: ListQuery, search: KeySearch, term: string): SafeHtml | "" {
  const inTab = countIn(listed.counts, query.status);
  if (listed.keys.length === 0 || (listed.previous === null && listed.next === null)) return "";
  const kept = shownTerm(search, query.q) === query.q;
  const words = keysShownInWords({
    shown: listed.keys.length,
    inTab,
    perPage: KEYS_PER_PAGE,
    order: query.sort,
    ascending: query.dir === "asc",
    // The others are reached by the links, which a search kept out of them has none of.
    hasPrevious: kept && listed.previous !== null,
    hasNext: kept && listed.next !== null,
  });
  const shown = html`<span class="muted">${words}${kept ? "" : html`: this search may be part of a secret, so it is kept out of the page's links and has no other pages; narrow it to find a key`}</span>`;
  const link = (cursor: string | null, rel: "prev" | "next", label: string) =>
    kept &&
    cursor &&
    html`<a class="button" rel="${rel}" href="/dashboard/keys?${listParams(term, { ...query, cursor }).toString()}">${label}</a>`;
  // Newest first, the page before holds newer keys; oldest first, older ones.
  const [before, after] =
    query.sort !== "created"
      ? ["← Previous page", "Next page →"]
      : query.dir === "desc"
        ? ["← Newer keys", "Older keys →"]
        : ["← Older keys", "Newer keys →"];
  return html`<nav class="pager" aria-label="Key list pages">${shown}${link(listed.previous, "prev", before)}${link(listed.next, "next", after)}</nav>`;
}

function noMatch(search: KeySearch, term: string): SafeHtml {
  if (search.kind === "secret")
    return html`No key has this secret: it is not one of these keys, or was copied wrongly.`;
  if (term === "") return html`No key matches what looks like part of a key's secret (it is not shown here).`;
  return html`No key matches “${term}”.`;
}

function emptyKeys(): SafeHtml {
  return html`<section class="panel empty"><h2>No keys yet</h2><p>Create a key to let an agent discover and run skills.</p>
<p><a class="button button-primary" href="/dashboard/keys/new">Create your first key</a></p></section>`;
}

function newKeyPage(ctx: PageContext, values: Partial<CreateKeyForm>, errors: Map<string, string>): string {
  return page(
    ctx,
    {
      title: "Create an API key",
      section: "keys",
      lead: "Use one key per agent and environment, and read-only keys where execution is not needed.",
    },
    keyForm(ctx, values, errors),
  );
}

/**
 * The secret, once: a copy button and a plain warning. Never stored, never in a URL. The
 * button works by script only, so the script shows it and hides the hint to select and
 * copy the key by hand (no button that does nothing, on the one page where the key must
 * not be missed).
 */
function secretPage(ctx: PageContext, key: KeyView, secret: string, title: string, note?: SafeHtml): string {
  return page(
    ctx,
    { title, section: "keys" },
    html`<section class="panel secret-panel" aria-labelledby="secret-title">
  <h2 id="secret-title">Copy the key for “${key.name}” now</h2>
  <p class="alert alert-warn" role="note"><strong>This is the only time the key is shown.</strong> skillport keeps only a hash of it. If you lose it, roll the key or create a new one.</p>
  <div class="secret-box">
    <code id="new-secret" class="secret" data-secret>${secret}</code>
    <button type="button" class="button" data-copy="new-secret" hidden>Copy</button>
  </div>
  <p class="copy-status" role="status" aria-live="polite" data-copy-status></p>
  <p class="hint" data-copy-hint>Click the key to select it, then copy it (Ctrl+C, or ⌘C on a Mac).</p>
  ${note && html`<p>${note}</p>`}
  <dl class="facts">
    <div><dt>Scope</dt><dd>${key.scope}</dd></div><div><dt>Plan</dt><dd>${key.plan}</dd></div>
    <div><dt>Environment</dt><dd>${key.environment}</dd></div><div><dt>Owner</dt><dd>${key.owner}</dd></div>
    <div><dt>Expires</dt><dd>${time(key.expiresAt, "never")}</dd></div>
  </dl>
  <p class="muted">Send it as <code>Authorization: Bearer &lt;key&gt;</code>. Keep it out of repositories and client-side code.</p>
  <p><a class="button button-primary" href="/dashboard/keys/${key.id}">I have copied it</a></p>
</section>`,
  );
}

/** The secret page again (a reload, a bookmark): the secret is not kept, so it cannot be. */
function secretGonePage(ctx: PageContext, key: KeyView): string {
  return page(
    ctx,
    { title: "The key was shown once", section: "keys" },
    html`<section class="panel">
  <p>The secret of “${key.name}” was shown when it was made and is not kept: skillport has only its hash. If it was not copied, roll the key for a new secret.</p>
  <p><a class="button button-primary" href="/dashboard/keys/${key.id}">Go to the key</a></p>
</section>`,
  );
}

/** What the edit, revoke and roll pages show for a key that no longer works. */
function inactiveKeyPage(ctx: PageContext, key: KeyView, status: "revoked" | "expired"): string {
  return page(
    ctx,
    { title: `“${key.name}” is ${status}`, section: "keys" },
    html`<section class="panel notice" role="alert">
  <p>The key <code>${key.prefix}…${key.last4}</code> is ${status}: it cannot be edited, rolled or revoked. Create a new key instead.</p>
  <p class="inline-actions"><a class="button" href="/dashboard/keys/${key.id}">Go to the key</a><a class="button button-primary" href="/dashboard/keys/new">Create key</a></p>
</section>`,
  );
}

/** What the roll page shows for a key rolled before: the key that replaced it, and the ways on. */
function rolledKeyPage(ctx: PageContext, key: KeyView, replacement: KeyView): string {
  return page(
    ctx,
    { title: `“${key.name}” was rolled`, section: "keys" },
    html`<section class="panel notice" role="alert">
  <p>The key <code>${key.prefix}…${key.last4}</code> was rolled at ${time(replacement.createdAt)}: <code>${replacement.prefix}…${replacement.last4}</code> replaced it${key.expiresAt && html`, and it stops working at ${time(key.expiresAt)}`}. A key is rolled once: roll the key that replaced it, or revoke this one to end it now.</p>
  <p class="inline-actions"><a class="button button-primary" href="/dashboard/keys/${replacement.id}">Go to the key that replaced it</a><a class="button button-danger" href="/dashboard/keys/${key.id}/revoke">Revoke this key</a></p>
</section>`,
  );
}

/** Editing changes the name, plan or limits; the secret stays the same. */
function editPage(ctx: PageContext, key: KeyView, values: EditKeyForm, errors: Map<string, string>): string {
  return page(
    ctx,
    {
      title: `Edit “${key.name}”`,
      section: "keys",
      lead: "The key keeps its secret, so clients need no change. New limits apply from its next request, on every process sharing this data directory.",
    },
    html`${editKeyForm(ctx, key, values, errors)}
<p class="muted">A key's ${keyFieldsInWords(FIXED_KEY_FIELDS)} cannot be edited: for other ones, <a href="/dashboard/keys/new">create a new key</a>, move its clients to it, then revoke this one.</p>`,
  );
}

/** Revoking asks first: it cannot be undone. */
function revokePage(ctx: PageContext, key: KeyView): string {
  return page(
    ctx,
    { title: `Revoke “${key.name}”?`, section: "keys" },
    html`<section class="panel danger-zone">
  <p>Requests with <code>${key.prefix}…${key.last4}</code> will be refused from the very next one, on every process sharing this data directory. This cannot be undone.</p>
  <form method="post" action="/dashboard/keys/${key.id}/revoke" class="inline-actions">
${csrfField(ctx)}
<button type="submit" class="button button-danger">Revoke key</button>
<a class="button button-quiet" href="/dashboard/keys/${key.id}">Cancel</a>
  </form>
</section>`,
  );
}

/**
 * Rolling asks for the grace period of the old key, among `choices` (those that end before
 * the key stops anyway: its grace cannot outlast that). A key with an end says so, and that
 * its new key keeps it.
 */
function rollPage(
  ctx: PageContext,
  key: KeyView,
  choices: readonly { seconds: number; label: string }[],
  refusal?: string,
): string {
  // A day by default, or the longest left when a day no longer fits.
  const selected = choices.some((c) => c.seconds === 86_400) ? 86_400 : choices.at(-1)?.seconds;
  return page(
    ctx,
    {
      title: `Roll “${key.name}”`,
      section: "keys",
      lead: `A new key with the same ${keyFieldsInWords(KEY_ATTRIBUTES)}. The old key keeps working for the grace period, so clients can switch without an outage.`,
    },
    html`<section class="panel narrow-panel">
  ${refusal && html`<p class="alert alert-error" role="alert">${refusal}</p>`}
  <form method="post" action="/dashboard/keys/${key.id}/roll" class="stack narrow">
${csrfField(ctx)}
<label for="grace">Grace period for <code>${key.prefix}…${key.last4}</code></label>
<select id="grace" name="grace_seconds"${key.expiresAt && html` aria-describedby="grace-hint"`}>
  ${choices.map((c) => html`<option value="${c.seconds}"${c.seconds === selected ? html` selected` : ""}>${c.label}</option>`)}
</select>
${
  key.expiresAt &&
  html`<p class="hint" id="grace-hint">This key stops working at ${time(key.expiresAt)}, and a key rolled from it will stop then too (a roll keeps the expiry). Only grace periods that end before then are offered.</p>`
}
<div class="inline-actions">
  <button type="submit" class="button button-primary">Roll key</button>
  <a class="button button-quiet" href="/dashboard/keys/${key.id}">Cancel</a>
</div>
  </form>
</section>`,
  );
}

/** The signed-in session's id (every key page has one: the plugin refuses the others). */
function sessionIdOf(request: FastifyRequest): string {
  const session = request.adminSession;
  if (!session) throw new Error("a key page reached without a session");
  return session.id;
}
