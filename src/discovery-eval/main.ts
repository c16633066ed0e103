/**
 * `npm run -s eval:discovery -- --tools FILE --queries FILE [--limit N] [--mode hybrid|lexical]
 * [--usage-split even-odd|odd-even [--feed-limit N]] [--json]`: relevance, latency and memory
 * of discovery on any labelled set in the format of ../shared/data/README.md (tools and
 * queries as JSON Lines, optionally gzipped). With `--usage-split`, half the queries are
 * fed as usage (learning from use) and the other half evaluated before and after.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { UseLiteEmbedder } from "../embeddings/use-lite-embedder.js";
import { openSqliteStore } from "../store/sqlite/index.js";
import { readAllJsonLines } from "./read-json-lines.js";
import { reportTable, usageTable } from "./report-table.js";
import { runEvaluation } from "./run-evaluation.js";
import { labelledQuery, toolRecord } from "./tool-records.js";
import { USAGE_SPLITS, type UsageSplit } from "./usage-feed.js";

const USAGE =
  "usage: npm run -s eval:discovery -- --tools FILE --queries FILE [--limit N] [--mode hybrid|lexical] [--usage-split even-odd|odd-even [--feed-limit N]] [--json]";

function positiveInteger(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!(Number.isInteger(value) && value > 0))
    throw new Error(`--${name} must be a positive integer, got ${text}`);
  return value;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      tools: { type: "string" },
      queries: { type: "string" },
      limit: { type: "string" },
      mode: { type: "string", default: "hybrid" },
      "usage-split": { type: "string" },
      "feed-limit": { type: "string" },
      json: { type: "boolean", default: false },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  if (!values.tools || !values.queries) throw new Error(USAGE);
  const limit = positiveInteger("limit", values.limit);
  const feedLimit = positiveInteger("feed-limit", values["feed-limit"]) ?? 10;
  const split = values["usage-split"];
  if (split !== undefined && !USAGE_SPLITS.includes(split as UsageSplit)) {
    throw new Error(`--usage-split must be one of ${USAGE_SPLITS.join(", ")}, got ${split}`);
  }
  const tools = (await readAllJsonLines(values.tools)).map((line, i) => toolRecord(line, i + 1));
  const queries = (await readAllJsonLines(values.queries, limit)).map((line, i) =>
    labelledQuery(line, i + 1),
  );
  if (values.mode !== "hybrid" && values.mode !== "lexical") {
    throw new Error(`--mode must be hybrid or lexical, got ${values.mode}`);
  }
  const embedder = values.mode === "hybrid" ? new UseLiteEmbedder() : undefined;
  // Learned queries go to a throwaway SQLite store, the embedded adapter the service uses.
  const storeDir = split === undefined ? undefined : mkdtempSync(join(tmpdir(), "skillport-eval-"));
  const store = storeDir === undefined ? undefined : openSqliteStore({ dataDir: storeDir });
  try {
    const report = await runEvaluation(tools, queries, {
      embedder,
      ...(store && {
        usage: { split: split as UsageSplit, store: store.learnedQueries, discoverLimit: feedLimit },
      }),
    });
    if (values.json) console.log(JSON.stringify(report, null, 2));
    else {
      const tables = [reportTable(report), report.usage && usageTable(report)].filter(Boolean).join("\n\n");
      console.log(`discovery on ${values.tools} with ${values.queries}\n\n${tables}`);
    }
  } finally {
    await embedder?.close();
    await store?.close();
    if (storeDir) rmSync(storeDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
