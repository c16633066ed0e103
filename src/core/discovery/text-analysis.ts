import { createRequire } from "node:module";

// Both packages are CommonJS without type declarations; loading them through `require`
// keeps the untyped surface to these two lines, and the shape checks below fail loudly
// at startup (not on the first query) if an upgrade changes what they export.
const require = createRequire(import.meta.url);
const stopwordModule: unknown = require("stopword");
const stemmerModule: unknown = require("wink-porter2-stemmer");

function loadEnglishStopWords(module: unknown): readonly string[] {
  const list = (module as { eng?: unknown } | null)?.eng;
  if (!Array.isArray(list) || !list.every((word) => typeof word === "string")) {
    throw new Error("stopword: expected an `eng` export holding an array of strings");
  }
  return list;
}

function loadStemmer(module: unknown): (word: string) => string {
  if (typeof module !== "function") throw new Error("wink-porter2-stemmer: expected a function export");
  return module as (word: string) => string;
}

const porter2 = loadStemmer(stemmerModule);

/**
 * Words that carry no topic ("can you show me how to…"): the `stopword` package's English
 * list. IDF would weigh them down anyway, but dropping them keeps postings short (speed)
 * and keeps them out of the score normalisation (see bm25f.ts). Adding request
 * boilerplate ("please", "need", "want") was measured on MetaTool and did not help.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(loadEnglishStopWords(stopwordModule));

/** Stems are cached; the bound keeps an adversarial stream of new words from growing it forever. */
const STEM_CACHE_LIMIT = 200_000;
const stemCache = new Map<string, string>();

/** Porter2 (English Snowball) stem of a lowercase word, memoised: "sending" → "send". */
export function stem(word: string): string {
  const cached = stemCache.get(word);
  if (cached !== undefined) return cached;
  // Digits and mixed alphanumerics ("v2", "oauth2") are identifiers, not English words.
  const stemmed = /^[a-z]+$/.test(word) ? porter2(word) : word;
  if (stemCache.size >= STEM_CACHE_LIMIT) stemCache.clear();
  stemCache.set(word, stemmed);
  return stemmed;
}

/**
 * Runs of letters and digits, possibly joined by identifier punctuation
 * (`message.send`, `snake_case`, `kebab-case`, `a/b`, `ns:name`), so that each run can be
 * split into parts and also kept joined.
 */
const CHUNK = /[\p{L}\p{N}]+(?:[._\-/:][\p{L}\p{N}]+)*/gu;
const SEPARATORS = /[._\-/:]+/;
/**
 * Boundaries inside an identifier segment: lower→Upper (`sendMessage`), an acronym followed
 * by a word (`HTMLParser` → HTML | Parser), letter↔digit (`oauth2`, `v2api`).
 */
const CASE_BOUNDARY =
  /(?<=\p{Ll})(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})|(?<=\p{L})(?=\p{N})|(?<=\p{N})(?=\p{L})/u;
/** A word with no boundary inside: lowercase letters, optionally one leading capital. */
const PLAIN_WORD = /^\p{Lu}?\p{Ll}*$/u;
/** Printable ASCII and ordinary whitespace only. */
const NOT_PLAIN_ASCII = /[^ -~\t\n\r]/;
/** A joined form is kept only for short identifiers: `GitHub` → `github` helps, a URL path does not. */
const MAX_JOINED_PARTS = 3;

/**
 * NFKD then drops combining marks, so "café", "ｃａｆｅ" and "cafe" meet, and drops
 * apostrophes so "user's" and "don't" stay one word.
 */
export function normalizeText(text: string): string {
  // Most catalog text is plain ASCII, where NFKD and mark removal change nothing.
  if (!NOT_PLAIN_ASCII.test(text)) return text.replace(/'s\b/g, "").replace(/'/g, "");
  return text
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .replace(/['’]s\b/gu, "")
    .replace(/['’]/gu, "");
}

/**
 * Splits one identifier-like chunk into lowercase parts, adding the joined form of every
 * piece that was split into two or three parts: `getUserById` → get, user, by, id;
 * `GitHub` → git, hub, github; `e-mail` → e, mail, email.
 */
export function splitIdentifier(chunk: string): string[] {
  // Most chunks are plain words; skipping the lookbehind regexes for them halves analysis time.
  if (PLAIN_WORD.test(chunk)) return [chunk.toLowerCase()];
  const out: string[] = [];
  const segments = chunk.split(SEPARATORS).filter((segment) => segment.length > 0);
  const allParts: string[] = [];
  for (const segment of segments) {
    const parts = segment.split(CASE_BOUNDARY).map((part) => part.toLowerCase());
    allParts.push(...parts);
    if (parts.length > 1 && parts.length <= MAX_JOINED_PARTS) out.push(parts.join(""));
  }
  out.unshift(...allParts);
  if (segments.length > 1 && allParts.length <= MAX_JOINED_PARTS) out.push(allParts.join(""));
  return out;
}

/** An email address: its user and host name a person or a place, not what a skill does. */
const EMAIL_ADDRESS = /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+/gu;
/** An absolute URL (`scheme://…` up to whitespace or a quote); group 1 is its scheme. */
const ABSOLUTE_URL = /\b([\p{L}][\p{L}\p{N}+.-]*):\/\/[^\s"'<>]+/gu;

/**
 * A request with its email addresses dropped and each absolute URL reduced to its scheme:
 * data a request carries ("remember my email is bob@example.com", "fetch
 * https://api.example.com/users") says who or where, not which skill is wanted. Split
 * into words, `bob@example.com` gave `example` and `com`, rare words that matched the one
 * skill whose examples show example.com URLs (http.request, first for that request). The
 * scheme stays (`https`, `ftp`): that the request holds a URL, and of which kind, does say
 * something about the skill. Skill texts keep their URLs: there they are the skill's own
 * words (an endpoint, a host it serves), and a bare host in a request ("grab the html of
 * example.com") still meets them.
 */
export function withoutAddresses(text: string): string {
  if (!text.includes("@") && !text.includes("://")) return text;
  return text.replace(EMAIL_ADDRESS, " ").replace(ABSOLUTE_URL, " $1 ");
}

/** Lowercase word tokens of a text, identifiers split (no stop-word removal, no stemming). */
export function tokenize(text: string): string[] {
  const tokens: string[] = [];
  for (const match of normalizeText(text).matchAll(CHUNK)) {
    for (const token of splitIdentifier(match[0])) tokens.push(token);
  }
  return tokens;
}

/** Index terms of each chunk seen so far; bounded like the stem cache. */
const chunkTermsCache = new Map<string, readonly string[]>();

/** The index terms of one chunk: its identifier parts, minus stop words and single letters, stemmed. */
function chunkTerms(chunk: string): readonly string[] {
  const cached = chunkTermsCache.get(chunk);
  if (cached !== undefined) return cached;
  const terms: string[] = [];
  for (const token of splitIdentifier(chunk)) {
    if (STOP_WORDS.has(token)) continue;
    if (token.length === 1 && !/\d/.test(token)) continue;
    terms.push(stem(token));
  }
  if (chunkTermsCache.size >= STEM_CACHE_LIMIT) chunkTermsCache.clear();
  chunkTermsCache.set(chunk, terms);
  return terms;
}

/**
 * Index terms of a text, the same for documents and queries: tokens, minus stop words and
 * single letters (fragments of identifiers such as `v2` or `e-mail`), Porter2-stemmed.
 * Catalog text repeats the same words and identifiers over and over, so each chunk's
 * terms are computed once (this halves index build time at 100k skills).
 */
export function analyze(text: string): string[] {
  const terms: string[] = [];
  for (const match of normalizeText(text).matchAll(CHUNK)) {
    for (const term of chunkTerms(match[0])) terms.push(term);
  }
  return terms;
}

/** Index terms of a request (`analyze` of the request `withoutAddresses`). */
export function analyzeQuery(query: string): string[] {
  return analyze(withoutAddresses(query));
}
