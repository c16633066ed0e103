import { z } from "zod";
import { defineSkill } from "../src/core/skills/skill.js";
import { ENGLISH_STOPWORDS } from "./lib/stopwords.js";
import { MAX_TEXT_CHARACTERS, TEXT_SIZE_NOTE } from "./lib/text-limits.js";
import { countGraphemes, countLines, countParagraphs, countSentences, WORD } from "./lib/text-units.js";

export const textStats = defineSkill({
  id: "text.stats",
  title: "Text statistics",
  description:
    "Counts characters, words, unique words, sentences, lines and paragraphs of a text and estimates reading time; " +
    "also lists the most frequent meaningful words (common English stopwords left out). Use it for word counts, " +
    "length limits, readability or a quick idea of what a text is about.",
  tags: ["text", "count", "words", "characters", "statistics", "reading time", "word frequency"],
  params: z.object({
    text: z.string().max(MAX_TEXT_CHARACTERS).describe(`The text to analyse. ${TEXT_SIZE_NOTE}`),
    top_words: z
      .number()
      .int()
      .min(0)
      .max(100)
      .default(10)
      .describe("How many most frequent words to list (0-100)."),
    words_per_minute: z
      .number()
      .int()
      .min(50)
      .max(1000)
      .default(200)
      .describe("Reading speed used for reading_time_seconds (an adult reads about 200-250)."),
  }),
  result: z.object({
    characters: z
      .number()
      .int()
      .describe("User-perceived characters (an emoji or accented letter counts once)."),
    characters_no_spaces: z.number().int().describe("Characters other than whitespace."),
    words: z
      .number()
      .int()
      .describe(
        "Words: runs of letters or digits, joined by inner apostrophes or hyphens (isn't, well-known) and, " +
          "between digits, by a decimal point or thousands separator (3.14, 1,000).",
      ),
    unique_words: z.number().int().describe("Distinct words, case-insensitive."),
    sentences: z
      .number()
      .int()
      .describe(
        "Sentences that contain at least one word, ended by . ! ? … or a blank line; a lower-case letter next " +
          'continues the sentence after . or … or a closing quote (e.g. this; "Stop!" he said).',
      ),
    lines: z
      .number()
      .int()
      .describe("Lines (0 for an empty text); a final line break ends the last line, it starts no other."),
    paragraphs: z.number().int().describe("Blocks of text separated by blank lines."),
    average_word_length: z.number().describe("Mean letters per word, two decimals."),
    reading_time_seconds: z
      .number()
      .int()
      .describe("Estimated reading time at words_per_minute, rounded up."),
    top_words: z
      .array(z.object({ word: z.string(), count: z.number().int() }))
      .describe(
        "Most frequent words without stopwords, lower-cased, most frequent first (ties alphabetical).",
      ),
  }),
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  examples: [
    {
      query: "how many words are in this paragraph",
      params: { text: "The quick brown fox jumps over the lazy dog." },
    },
    {
      query: "how long does it take to read this article",
      params: { text: "Long article text...", words_per_minute: 230 },
    },
    {
      query: "most common words in this text",
      params: { text: "Cats and dogs. Cats like naps.", top_words: 5 },
    },
  ],
  async run(params) {
    const { text } = params;
    const counts = new Map<string, number>();
    let wordCount = 0;
    let letterCount = 0;
    for (const [word] of text.matchAll(WORD)) {
      wordCount += 1;
      letterCount += countGraphemes(word);
      const lower = word.toLowerCase();
      counts.set(lower, (counts.get(lower) ?? 0) + 1);
    }
    const characterCount = countGraphemes(text);
    // CR LF is one character, as in countGraphemes.
    const whitespaceCount = text.match(/\r\n|\s/g)?.length ?? 0;
    const top = [...counts]
      .filter(([word]) => !ENGLISH_STOPWORDS.has(word.replace(/’/g, "'")) && /\p{L}/u.test(word))
      .sort(([wordA, countA], [wordB, countB]) => countB - countA || (wordA < wordB ? -1 : 1))
      .slice(0, params.top_words)
      .map(([word, count]) => ({ word, count }));
    return {
      characters: characterCount,
      characters_no_spaces: characterCount - whitespaceCount,
      words: wordCount,
      unique_words: counts.size,
      sentences: countSentences(text),
      lines: countLines(text),
      paragraphs: countParagraphs(text),
      average_word_length: wordCount === 0 ? 0 : Math.round((letterCount / wordCount) * 100) / 100,
      reading_time_seconds: Math.ceil((wordCount / params.words_per_minute) * 60),
      top_words: top,
    };
  },
});
