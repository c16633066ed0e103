import { z } from "zod";
import { defineSkill } from "../src/core/skills/skill.js";
import {
  type ExtractedDate,
  extractDates,
  extractEmails,
  extractHashtags,
  extractMentions,
  extractNumbers,
  extractPhones,
  extractUrls,
} from "./lib/extractors.js";
import { MAX_TEXT_CHARACTERS, TEXT_SIZE_NOTE } from "./lib/text-limits.js";

const KINDS = ["emails", "urls", "phones", "hashtags", "mentions", "numbers", "dates"] as const;
type Kind = (typeof KINDS)[number];

const extractors: Record<Kind, (text: string) => (string | number | ExtractedDate)[]> = {
  emails: extractEmails,
  urls: extractUrls,
  phones: extractPhones,
  hashtags: extractHashtags,
  mentions: extractMentions,
  numbers: extractNumbers,
  dates: extractDates,
};

export const textExtract = defineSkill({
  id: "text.extract",
  title: "Extract emails, URLs, phone numbers and more from text",
  description:
    "Finds email addresses, URLs, phone numbers, #hashtags, @mentions, numbers and dates in free text and returns " +
    "them as lists, in order of appearance. Choose what to look for with `kinds` (all by default). Use it to pull " +
    "contact details or links out of a message, page or document.",
  tags: ["text", "extract", "email", "url", "phone", "hashtag", "mention", "regex", "parse"],
  params: z.object({
    text: z.string().max(MAX_TEXT_CHARACTERS).describe(`The text to search. ${TEXT_SIZE_NOTE}`),
    kinds: z
      .array(z.enum(KINDS))
      .min(1)
      .default([...KINDS])
      .describe("What to extract: emails, urls, phones, hashtags, mentions, numbers, dates."),
    unique: z.boolean().default(true).describe("Drop repeated values (first occurrence kept)."),
    limit: z.number().int().min(1).max(1000).default(100).describe("At most this many values per kind."),
  }),
  result: z.object({
    emails: z
      .array(z.string())
      .optional()
      .describe(
        "Email addresses, whole: a local part keeps RFC 5322 punctuation (o'neil@example.ie, a!b@example.com), " +
          "and one joined to a URL or key by /, = or | starts after it (?to=ann@example.com gives ann@example.com).",
      ),
    urls: z
      .array(z.string())
      .optional()
      .describe(
        "http(s) and www. URLs, without surrounding quotes (straight or curly) or trailing punctuation.",
      ),
    phones: z
      .array(z.string())
      .optional()
      .describe(
        "Phone numbers as written: 7-15 digits with a +country code (+44 7911 123456), an area code in " +
          "parentheses or dashes; grouped only by spaces or dots when they start with 0 or read 3-3-4 " +
          "(415 555 0123, with or without a leading 1). A US Social Security number (123-45-6789) is not one.",
      ),
    hashtags: z.array(z.string()).optional().describe("Hashtags with their #."),
    mentions: z.array(z.string()).optional().describe("@mentions with their @."),
    numbers: z
      .array(z.number())
      .optional()
      .describe(
        "Numbers, thousands separators removed (1,234.5 -> 1234.5), a minus sign − read as -. A comma is a " +
          "decimal comma after dotted thousands (1.234,5 -> 1234.5) or thousands grouped by no-break, thin or " +
          "narrow spaces (1\u202f234,5 -> 1234.5); a lone 1,5 (1.5, or the list 1 and 5?) is left out. Ordinary " +
          "spaces separate numbers: 1 000 000 is 1, 0 and 0.",
      ),
    dates: z
      .array(z.object({ text: z.string(), iso: z.string().nullable() }))
      .optional()
      .describe(
        "Dates as written, with ISO form when unambiguous: 25/12/2024 and 12/25/2024 are 2024-12-25, " +
          "03/04/2024 is null (3 April or 4 March).",
      ),
    counts: z.record(z.string(), z.number().int()).describe("Number of values returned per requested kind."),
  }),
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  examples: [
    {
      query: "find all email addresses in this text",
      params: { text: "Write to ann@example.com or bob@example.org.", kinds: ["emails"] },
    },
    {
      query: "extract links and hashtags from this tweet",
      params: {
        text: "New release! https://example.com/changelog #release #oss",
        kinds: ["urls", "hashtags"],
      },
    },
    {
      query: "get the phone numbers and dates from this note",
      params: { text: "Call +1 415-555-0123 before March 3, 2025.", kinds: ["phones", "dates"] },
    },
  ],
  async run(params) {
    const result: Record<string, unknown> = {};
    const counts: Record<string, number> = {};
    for (const kind of KINDS) {
      if (!params.kinds.includes(kind)) continue;
      let values = extractors[kind](params.text);
      if (params.unique) {
        const seen = new Set<string>();
        values = values.filter((value) => {
          const key = typeof value === "object" ? value.text : String(value);
          if (seen.has(key)) return false;
          seen.add(key);
          return true;
        });
      }
      result[kind] = values.slice(0, params.limit);
      counts[kind] = Math.min(values.length, params.limit);
    }
    return { ...result, counts };
  },
});
