import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { SkillDetail } from "../../core/answer-schemas.js";
import { holdsSecretRun } from "../../core/keys/secret.js";
import type { SkillAnnotations } from "../../core/skills/skill.js";
import { integer, jsonBlock } from "./format.js";
import { html, type SafeHtml } from "./html.js";
import { page } from "./layout.js";
import type { Dashboard } from "./plugin.js";
import { searchTerm } from "./search-term.js";

/** Discovery's longest query (contract.md: 1–1000 characters). */
const SKILL_SEARCH_MAX = 1000;

const SearchQuery = z.object({ q: searchTerm(SKILL_SEARCH_MAX) });

const ANNOTATION_LABELS: Record<keyof SkillAnnotations, string> = {
  readOnly: "read-only",
  destructive: "destructive",
  idempotent: "idempotent",
  openWorld: "open world",
  lightAsyncIo: "in-process I/O",
};

function annotationTags(annotations: SkillAnnotations): SafeHtml {
  const on = (Object.keys(ANNOTATION_LABELS) as (keyof SkillAnnotations)[]).filter(
    (name) => annotations[name],
  );
  return html`${on.map((name) => html`<span class="tag tag-${name}">${ANNOTATION_LABELS[name]}</span>`)}`;
}

/**
 * The catalog, and a search box that asks discovery what an agent would get before any
 * learning from use: the dashboard acts for no owner, so no owner's learned queries count
 * (and its searches teach nothing).
 */
export function registerSkillPages(app: FastifyInstance, dashboard: Dashboard): void {
  const { catalog, registry } = dashboard.skillport;

  app.get("/skills", async (request, reply) => {
    const { q: given } = SearchQuery.parse(request.query ?? {});
    // A secret pasted here by mistake is neither searched for nor shown back.
    const secretGiven = holdsSecretRun(given);
    const q = secretGiven ? "" : given;
    const found = q ? await catalog.discover({ query: q, limit: 50 }) : undefined;
    const all = registry.list().map(({ skill }) => catalog.get(skill.id));
    const skills: (SkillDetail & { score?: number })[] = found
      ? found.results.map((result) => ({ ...catalog.get(result.skill_id), score: result.score }))
      : all;
    const cards = skills.map(
      (skill) => html`<li class="skill-card">
  <div class="skill-card-head">
    <h2><a href="/dashboard/skills/${skill.skill_id}">${skill.name}</a></h2>
    ${skill.score !== undefined && html`<span class="score" title="Relevance score">${skill.score.toFixed(2)}</span>`}
  </div>
  <p class="skill-id"><code>${skill.skill_id}</code></p>
  <p class="skill-description">${skill.description}</p>
  <p class="tags">${skill.tags.map((tag) => html`<span class="tag">${tag}</span>`)}${annotationTags(skill.annotations)}</p>
</li>`,
    );
    const summary = found
      ? html`<p class="muted" role="status">${integer(found.results.length)} results for “${q}”, ranked as <code>POST /v1/discover</code> ranks them for an owner with nothing learned from use (${found.took_ms} ms).</p>`
      : secretGiven
        ? html`<p class="muted" role="status">That looks like an API key's secret, not a description of a capability: it was not searched for or shown. ${integer(all.length)} skills.</p>`
        : html`<p class="muted">${integer(all.length)} skills.</p>`;
    return dashboard.send(
      reply,
      page(
        dashboard.context(request),
        { title: "Skills", section: "skills", lead: "The catalog agents discover and run." },
        html`<form class="toolbar" method="get" action="/dashboard/skills" role="search">
  <label class="visually-hidden" for="skill-search">Describe what an agent needs</label>
  <input id="skill-search" type="search" name="q" value="${q}" maxlength="${SKILL_SEARCH_MAX}" placeholder="Describe a capability, e.g. “send a message to a channel”">
  <button type="submit" class="button button-primary">Discover</button>
  ${q && html`<a class="button button-quiet" href="/dashboard/skills">Show all</a>`}
</form>
${summary}
${skills.length > 0 ? html`<ul class="skill-grid">${cards}</ul>` : html`<section class="panel empty"><h2>No match</h2><p>Try other words.</p></section>`}`,
      ),
    );
  });

  app.get<{ Params: { "*": string } }>("/skills/*", async (request, reply) => {
    const skill = catalog.get(request.params["*"]);
    return dashboard.send(
      reply,
      page(
        dashboard.context(request),
        { title: skill.name, section: "skills", lead: html`<code>${skill.skill_id}</code>` },
        html`<section class="panel">
  <p class="skill-description">${skill.description}</p>
  <p class="tags">${skill.tags.map((tag) => html`<span class="tag">${tag}</span>`)}</p>
  <h2>Annotations</h2>
  <dl class="facts">${(Object.keys(ANNOTATION_LABELS) as (keyof SkillAnnotations)[]).map(
    (name) =>
      html`<div><dt>${ANNOTATION_LABELS[name]}</dt><dd>${skill.annotations[name] ? "yes" : "no"}</dd></div>`,
  )}</dl>
</section>
<div class="grid-2">
  <section class="panel"><h2>Params schema</h2>${jsonBlock(skill.params, "Params JSON Schema")}</section>
  <section class="panel"><h2>Result schema</h2>${jsonBlock(skill.result, "Result JSON Schema")}</section>
</div>
${
  skill.examples.length > 0 &&
  html`<section class="panel"><h2>Examples</h2>${skill.examples.map(
    (example) => html`<h3>${example.query}</h3>${jsonBlock(example.params, `Params for: ${example.query}`)}`,
  )}</section>`
}`,
      ),
    );
  });
}
