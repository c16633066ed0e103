/** Discovery: ranking skills for a free-text request. */
export {
  type Bm25fParameters,
  Bm25fRetriever,
  DEFAULT_BM25F_PARAMETERS,
  type FieldParameters,
} from "./bm25f.js";
export { createDiscoveryIndex, DiscoveryIndex, type DiscoveryIndexOptions } from "./discovery-index.js";
export {
  DEFAULT_DISCOVERY_LIMIT,
  type DiscoveryHit,
  type DiscoveryResult,
  type DiscoverySearchOptions,
} from "./discovery-result.js";
export {
  type DescriptionRecord,
  FIELD_NAMES,
  type FieldName,
  recordToDocument,
  type SkillDocument,
  schemaText,
  skillToDocument,
} from "./document.js";
export type { TextEmbedder } from "./embedder.js";
export {
  type LabelledQuery,
  MetricsAccumulator,
  ndcgAt,
  type RetrievalMetrics,
  recallAt,
  reciprocalRankAt,
} from "./evaluate.js";
export { DEFAULT_FUSION_WEIGHTS, type FusionWeights, fuseScores } from "./fusion.js";
export type { MatchEvidence, RankingInfo } from "./match-evidence.js";
export { createDiscovery, type Discovery } from "./registry-discovery.js";
export type { Retriever, RetrieverSearchOptions, ScoredId } from "./retriever.js";
export { type ModelProblem, SemanticIndex, type SemanticState } from "./semantic-index.js";
export { analyze, normalizeText, STOP_WORDS, splitIdentifier, stem, tokenize } from "./text-analysis.js";
export { VectorIndex } from "./vector-index.js";
