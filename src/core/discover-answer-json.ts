import type { DiscoverResponse, SkillSummary } from "./answer-schemas.js";

/**
 * A discover answer as JSON text, exactly as `JSON.stringify` writes it, without writing
 * every skill's summary again. A summary (mostly its params' JSON Schema) is most of an
 * answer's bytes and changes only with the catalog, and serialising the whole answer took
 * about a fifth of a discover's CPU; so each summary's JSON is kept, by the summary object
 * the catalog derived once per skill (`summaryOf`), and only a result's own members (its
 * score and why it matched) are written per answer.
 *
 * `summaryOf(skillId)` gives the catalog's summary of a skill now. A result whose first
 * members are not that summary's, the very same values in the same order (a skill replaced
 * since the answer was made, or a result built some other way), is written whole: the text
 * never depends on whether the kept JSON could be used.
 */
export function discoverAnswerJson(
  answer: DiscoverResponse,
  summaryOf: (skillId: string) => SkillSummary | undefined,
): string {
  const members: string[] = [];
  for (const [name, value] of Object.entries(answer)) {
    const json =
      name === "results"
        ? `[${answer.results.map((r) => resultJson(r, summaryOf)).join(",")}]`
        : JSON.stringify(value);
    if (json !== undefined) members.push(`${JSON.stringify(name)}:${json}`);
  }
  return `{${members.join(",")}}`;
}

/** Each summary's JSON without its closing brace, so that a result's own members can follow. */
const openSummaryJson = new WeakMap<SkillSummary, string>();

function resultJson(result: object, summaryOf: (skillId: string) => SkillSummary | undefined): string {
  const record = result as Record<string, unknown>;
  const summary = typeof record.skill_id === "string" ? summaryOf(record.skill_id) : undefined;
  const names = Object.keys(record);
  const summaryNames = summary ? Object.keys(summary) : [];
  const startsWithSummary =
    summary !== undefined &&
    summaryNames.every(
      (name, i) => names[i] === name && Object.is(record[name], summary[name as keyof SkillSummary]),
    );
  if (!startsWithSummary) return JSON.stringify(result);
  let json = openSummaryJson.get(summary);
  if (json === undefined) {
    json = JSON.stringify(summary).slice(0, -1);
    openSummaryJson.set(summary, json);
  }
  for (const name of names.slice(summaryNames.length)) {
    const value = JSON.stringify(record[name]);
    if (value !== undefined) json += `,${JSON.stringify(name)}:${value}`;
  }
  return `${json}}`;
}
