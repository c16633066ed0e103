/**
 * `npm run -s eval:discovery -- --tools FILE --queries FILE [--limit N] [--mode hybrid|lexical] [--json]`:
 * relevance, latency and memory of discovery on any labelled set in the format of
 * ../shared/data/README.md (tools and queries as JSON Lines, optionally gzipped).
 */
import { parseArgs } from "node:util";
import { UseLiteEmbedder } from "../embeddings/use-lite-embedder.js";
import { readAllJsonLines } from "./read-json-lines.js";
import { reportTable } from "./report-table.js";
import { runEvaluation } from "./run-evaluation.js";
import { labelledQuery, toolRecord } from "./tool-records.js";

const USAGE =
  "usage: npm run -s eval:discovery -- --tools FILE --queries FILE [--limit N] [--mode hybrid|lexical] [--json]";

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      tools: { type: "string" },
      queries: { type: "string" },
      limit: { type: "string" },
      mode: { type: "string", default: "hybrid" },
      json: { type: "boolean", default: false },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  if (!values.tools || !values.queries) throw new Error(USAGE);
  const limit = values.limit === undefined ? undefined : Number(values.limit);
  if (limit !== undefined && !(Number.isInteger(limit) && limit > 0)) {
    throw new Error(`--limit must be a positive integer, got ${values.limit}`);
  }
  const tools = (await readAllJsonLines(values.tools)).map((line, i) => toolRecord(line, i + 1));
  const queries = (await readAllJsonLines(values.queries, limit)).map((line, i) =>
    labelledQuery(line, i + 1),
  );
  if (values.mode !== "hybrid" && values.mode !== "lexical") {
    throw new Error(`--mode must be hybrid or lexical, got ${values.mode}`);
  }
  const embedder = values.mode === "hybrid" ? new UseLiteEmbedder() : undefined;
  try {
    const report = await runEvaluation(tools, queries, { embedder });
    if (values.json) console.log(JSON.stringify(report, null, 2));
    else console.log(`discovery on ${values.tools} with ${values.queries}\n\n${reportTable(report)}`);
  } finally {
    await embedder?.close();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
