import { describe, expect, it } from "vitest";
import { textExtract } from "../../skills/text-extract.js";
import { textStats } from "../../skills/text-stats.js";
import { runSkill } from "./run-skill.js";

describe("text.stats", () => {
  it("counts a short text exactly", async () => {
    const text =
      "The cat sat on the mat. The cat ran!\nDid the dog see it?\n\nA new paragraph, isn't it? Café 😀";
    expect(await runSkill(textStats, { text, top_words: 3 })).toEqual({
      characters: 91,
      characters_no_spaces: 70,
      words: 20,
      unique_words: 15,
      sentences: 5,
      lines: 4,
      paragraphs: 2,
      average_word_length: 3.2,
      reading_time_seconds: 6,
      top_words: [
        { word: "cat", count: 2 },
        { word: "café", count: 1 },
        { word: "dog", count: 1 },
      ],
    });
  });

  it("answers zeros for an empty text", async () => {
    expect(await runSkill(textStats, { text: "" })).toMatchObject({
      characters: 0,
      words: 0,
      sentences: 0,
      lines: 0,
      paragraphs: 0,
      average_word_length: 0,
      reading_time_seconds: 0,
      top_words: [],
    });
  });

  it("estimates reading time from words_per_minute", async () => {
    const text = "word ".repeat(400);
    expect((await runSkill(textStats, { text, words_per_minute: 200 })).reading_time_seconds).toBe(120);
  });

  it("counts emoji sequences, flags and combining accents as one character each", async () => {
    const result = await runSkill(textStats, { text: "👨‍👩‍👧🇫🇷e\u0301👍🏽\r\n" });
    expect(result).toMatchObject({ characters: 5, characters_no_spaces: 4 });
  });

  // Regression: a zero-width joiner drew any next character into its cluster, spaces
  // included, and characters_no_spaces came out as -2.
  it("joins only pictographs across a zero-width joiner, so no count goes negative", async () => {
    expect(await runSkill(textStats, { text: "a\u200d \u200d \u200d " })).toMatchObject({
      characters: 4,
      characters_no_spaces: 1,
    });
    expect(await runSkill(textStats, { text: "a\u200da" })).toMatchObject({ characters: 2 });
    expect(await runSkill(textStats, { text: "\u0301\u0301 x" })).toMatchObject({
      characters: 3,
      characters_no_spaces: 2,
    });
  });

  it("never counts fewer than zero non-space characters, nor more than characters, on mixed input", async () => {
    const pieces = [" ", "\t", "\r", "\n", "\u200d", "\u0301", "a", "😀", "🏽", "🇫", "\u00a0", "\ufe0f"];
    let seed = 1;
    for (let run = 0; run < 500; run += 1) {
      let text = "";
      for (let i = 0; i < 12; i += 1) {
        seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
        text += pieces[seed % pieces.length];
      }
      const { characters, characters_no_spaces } = await runSkill(textStats, { text });
      expect(characters_no_spaces, JSON.stringify(text)).toBeGreaterThanOrEqual(0);
      expect(characters, JSON.stringify(text)).toBeGreaterThanOrEqual(characters_no_spaces as number);
    }
  });

  it("treats hyphenated words and contractions as one word", async () => {
    expect(await runSkill(textStats, { text: "A well-known fact isn't news." })).toMatchObject({ words: 5 });
  });

  // Regression (skills audit, finding 8): a lower-case word after "!" or "?" continued the
  // sentence, so "word! word! word!" was one.
  it("ends a sentence at ! or ? before a lower-case word, and not at a full stop or a quoted one", async () => {
    const sentences = async (text: string) => (await runSkill(textStats, { text })).sentences;
    expect(await sentences("word! word! word!")).toBe(3);
    expect(await sentences("What? no way")).toBe(2);
    expect(await sentences('"Stop!" he said. E.g.  this stays one, as does Well… maybe.')).toBe(2);
  });

  // Regression (skills audit, finding 8): a final line break was counted as starting a line.
  it("counts a final line break as ending the last line, not starting another", async () => {
    const lines = async (text: string) => (await runSkill(textStats, { text })).lines;
    expect(await lines("line1\nline2\n")).toBe(2);
    expect(await lines("line1\r\nline2\r\n")).toBe(2);
    expect(await lines("line1\nline2")).toBe(2);
    expect(await lines("line1\n\n")).toBe(2);
    expect(await lines("\n")).toBe(1);
  });

  // Regression (skills audit, finding 8): "3.14" and "1,000" were two words each.
  it("counts a number with a decimal point or thousands separator as one word", async () => {
    expect(await runSkill(textStats, { text: "Pi is 3.14, not 1,000 or 1.234,56." })).toMatchObject({
      words: 7,
      unique_words: 7,
    });
    // Between letters a dot or comma still separates words.
    expect(await runSkill(textStats, { text: "end.Next a,b" })).toMatchObject({ words: 4 });
  });

  it("stays fast on a million-character text (Intl.Segmenter iteration is quadratic in V8)", async () => {
    const started = performance.now();
    const result = await runSkill(textStats, { text: "ab-".repeat(333_333) });
    expect(result.words).toBe(1);
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it("stays fast on a long run of closing quotes after a full stop (the sentence rule's look-behind)", async () => {
    const result = await runSkill(textStats, { text: `Done.${"'".repeat(999_000)} Next one.` });
    expect(result).toMatchObject({ sentences: 2, words: 3 });
  });

  it("refuses texts over a million characters", () => {
    expect(textStats.params.safeParse({ text: "x".repeat(1_000_001) }).success).toBe(false);
  });
});

describe("text.extract", () => {
  const text = [
    "Hi @ann_smith and @bob! Mail ann@example.com or support@sub.example.co.uk (not @example.com).",
    "See https://example.com/path?q=1, www.test.org and (https://en.wikipedia.org/wiki/Foo_(bar)).",
    "Call +1 415-555-0123 or (020) 7946 0958. Meet on 2024-03-15T10:30, March 3, 2025 or 12/01/2024.",
    "Price: $1,234.56, 42 items, -3.5 degrees. #launch #día_uno #2024 C# rocks. ann@example.com again.",
  ].join("\n");

  it("finds every kind in order of appearance", async () => {
    expect(await runSkill(textExtract, { text })).toEqual({
      emails: ["ann@example.com", "support@sub.example.co.uk"],
      urls: ["https://example.com/path?q=1", "www.test.org", "https://en.wikipedia.org/wiki/Foo_(bar)"],
      phones: ["+1 415-555-0123", "(020) 7946 0958"],
      hashtags: ["#launch", "#día_uno"],
      mentions: ["@ann_smith", "@bob"],
      numbers: [1234.56, 42, -3.5, 2024],
      dates: [
        { text: "2024-03-15T10:30", iso: "2024-03-15T10:30" },
        { text: "March 3, 2025", iso: "2025-03-03" },
        { text: "12/01/2024", iso: null },
      ],
      counts: { emails: 2, urls: 3, phones: 2, hashtags: 2, mentions: 2, numbers: 4, dates: 3 },
    });
  });

  it("gives a slash or dot date its ISO form when only one reading is a date, and drops impossible ones", async () => {
    const text = "25/12/2024, 12/25/2024, 05/05/2024, 31.01.2024, 03/04/2024, 31/02/2024 and 45/13/2024";
    expect((await runSkill(textExtract, { text, kinds: ["dates"] })).dates).toEqual([
      { text: "25/12/2024", iso: "2024-12-25" },
      { text: "12/25/2024", iso: "2024-12-25" },
      { text: "05/05/2024", iso: "2024-05-05" },
      { text: "31.01.2024", iso: "2024-01-31" },
      { text: "03/04/2024", iso: null },
    ]);
  });

  it("returns only the requested kinds", async () => {
    expect(await runSkill(textExtract, { text, kinds: ["emails"] })).toEqual({
      emails: ["ann@example.com", "support@sub.example.co.uk"],
      counts: { emails: 2 },
    });
  });

  it("keeps repeats when unique is false and honours limit", async () => {
    expect(await runSkill(textExtract, { text, kinds: ["emails"], unique: false })).toMatchObject({
      emails: ["ann@example.com", "support@sub.example.co.uk", "ann@example.com"],
    });
    expect(await runSkill(textExtract, { text, kinds: ["emails"], limit: 1 })).toEqual({
      emails: ["ann@example.com"],
      counts: { emails: 1 },
    });
  });

  // Regression: the local part was ASCII-only and a match could start inside a word, so
  // "jürgen@example.de" came back as "rgen@example.de", an address not in the text.
  it("returns internationalised addresses whole, never the tail of a word", async () => {
    const emails = async (text: string) => (await runSkill(textExtract, { text, kinds: ["emails"] })).emails;
    expect(await emails("Mail jürgen@example.de")).toEqual(["jürgen@example.de"]);
    expect(await emails("josé@example.com, ünï@example.org")).toEqual([
      "josé@example.com",
      "ünï@example.org",
    ]);
    expect(await emails("e\u0301mile@example.com")).toEqual(["e\u0301mile@example.com"]);
    // A local part over RFC 5321's 64 characters is not an address; its last 64 are not one either.
    expect(await emails(`${"a".repeat(70)}@example.com`)).toEqual([]);
  });

  // Regression (skills audit, finding 1): the local part took only letters, digits and
  // . _ % + -, so an address with an apostrophe or other RFC 5322 atext came back as its
  // tail: "o'neil@example.ie" as "neil@example.ie", a different address.
  it("returns an address with RFC 5322 punctuation in its local part whole, never its tail", async () => {
    const emails = async (text: string) => (await runSkill(textExtract, { text, kinds: ["emails"] })).emails;
    expect(await emails("Mail o'neil@example.ie or first.o'brien@example.com")).toEqual([
      "o'neil@example.ie",
      "first.o'brien@example.com",
    ]);
    expect(await emails("a!b@example.com, c#d$e%f&g*h+i?j^k_l`m{n}o~p-q@example.com")).toEqual([
      "a!b@example.com",
      "c#d$e%f&g*h+i?j^k_l`m{n}o~p-q@example.com",
    ]);
    // As a word processor writes the apostrophe.
    expect(await emails("Write to o’neil@example.ie.")).toEqual(["o’neil@example.ie"]);
    // Quotes and braces around an address are not part of it.
    expect(await emails("'ann@example.com', `bob@example.com` and {cy@example.com}")).toEqual([
      "ann@example.com",
      "bob@example.com",
      "cy@example.com",
    ]);
    // A run that starts with punctuation gives nothing rather than a tail.
    expect(await emails("!ann@example.com, ~bob@example.com, x'!cy@example.com")).toEqual([
      "x'!cy@example.com",
    ]);
  });

  it("reads an address joined to a URL, a key or a field by / = or | from after that character", async () => {
    const emails = async (text: string) => (await runSkill(textExtract, { text, kinds: ["emails"] })).emails;
    expect(
      await emails(
        "https://example.com/unsubscribe?to=ann@example.com email=bob@example.com 1|cy@example.com|Cy",
      ),
    ).toEqual(["ann@example.com", "bob@example.com", "cy@example.com"]);
    expect(await emails("https://example.com/users/dee@example.com")).toEqual(["dee@example.com"]);
  });

  // Regression: the domain could end inside a label, so "info@example.xn--p1ai" came back
  // as "info@example.xn" and "bob@mail.example.c0m" as "bob@mail.example".
  it("returns a domain whole or not at all, internationalised top-level labels included", async () => {
    const emails = async (text: string) => (await runSkill(textExtract, { text, kinds: ["emails"] })).emails;
    expect(await emails("Пишите на info@example.xn--p1ai или sales@shop.xn--80asehdb.")).toEqual([
      "info@example.xn--p1ai",
      "sales@shop.xn--80asehdb",
    ]);
    expect(await emails("mail bob@mail.example.c0m now, or ann@example-co.uk")).toEqual([
      "ann@example-co.uk",
    ]);
    expect(await emails("Write to ann@example.com.")).toEqual(["ann@example.com"]);
  });

  it("ends a URL at CJK or fullwidth punctuation, as at a space", async () => {
    const text = "访问https://example.com/路径。谢谢，或 https://example.org/a（备用）";
    expect((await runSkill(textExtract, { text, kinds: ["urls"] })).urls).toEqual([
      "https://example.com/路径",
      "https://example.org/a",
    ]);
  });

  // Regression: marks were not allowed in a tag, which then ended at the first one.
  it("keeps combining marks inside hashtags (Devanagari, decomposed accents)", async () => {
    expect(
      await runSkill(textExtract, { text: "#नमस्ते #cafe\u0301 #e\u0301t\u00e9", kinds: ["hashtags"] }),
    ).toEqual({ hashtags: ["#नमस्ते", "#cafe\u0301", "#e\u0301t\u00e9"], counts: { hashtags: 3 } });
  });

  // Regression: any 7-15 digits in groups were a phone number, and were then masked out
  // of numbers too.
  it("does not take decimals, lists, IP addresses or dotted dates for phone numbers", async () => {
    const text = "IP 10.20.30.40, build 2024.10.15, totals 10 20 30 40, ratio 1234.5678";
    expect(await runSkill(textExtract, { text, kinds: ["phones", "numbers"] })).toEqual({
      phones: [],
      numbers: [10, 20, 30, 40, 1234.5678],
      counts: { phones: 0, numbers: 5 },
    });
  });

  it("reads a range of years, comma-joined lists and coordinates as numbers (audit 22, skills F15)", async () => {
    const text = "years 2019-2023 and 2024; scores: 10,20,30; point (3,4); total 1,234,567.5";
    expect(await runSkill(textExtract, { text, kinds: ["phones", "numbers"] })).toEqual({
      phones: [],
      numbers: [2019, 2023, 2024, 10, 20, 30, 3, 4, 1234567.5],
      counts: { phones: 0, numbers: 9 },
    });
  });

  // Audit 23 (changes #6): reading every comma as a separator turned "1.234,56" into 1.234
  // and 56, and "12,5 %" into 12 and 5: wrong values are worse than none.
  it("reads a decimal comma after dotted thousands, and leaves a lone d,d out as ambiguous", async () => {
    const text = "Total: 1.234,56 EUR, VAT 12,5 %, pi 3,14159, x 1,0000 y, list -3,4,-5, pair [1.5,2.5]";
    expect(await runSkill(textExtract, { text, kinds: ["numbers"] })).toEqual({
      numbers: [1234.56, -3, 4, -5, 1.5, 2.5],
      counts: { numbers: 6 },
    });
  });

  // Regression (skills audit, finding 3): a URL in curly quotes kept its closing quote
  // ("https://example.com/q”"), though straight quotes and trailing punctuation were removed.
  it("ends a URL at a typographic quote, as at a straight one", async () => {
    const text =
      "“https://example.com/q” ‘https://example.com/x’ «https://example.fr/page» " +
      "„https://example.de/a“ he said “see https://example.com/a.” and https://example.com/b…";
    expect((await runSkill(textExtract, { text, kinds: ["urls"] })).urls).toEqual([
      "https://example.com/q",
      "https://example.com/x",
      "https://example.fr/page",
      "https://example.de/a",
      "https://example.com/a",
      "https://example.com/b",
    ]);
  });

  // Regression (skills audit, finding 4): a MINUS SIGN (U+2212) was not read as a sign, so
  // "−5 °C" gave 5.
  it("reads U+2212 MINUS SIGN as a sign, wherever a hyphen-minus is one", async () => {
    const text = "temp −5 °C, list −3,4,−5, pair (−1.5,2), debt −1.234,5 EUR, −1\u202f234";
    expect((await runSkill(textExtract, { text, kinds: ["numbers"], unique: false })).numbers).toEqual([
      -5, -3, 4, -5, -1.5, 2, -1234.5, -1234,
    ]);
  });

  // Skills audit, finding 4: "1 000 000" gave 1, 0 and 0. Thousands grouped by the spaces
  // typography keeps for digit groups are read; an ordinary space stays a separator, since
  // "5 100 200" may be a list.
  it("reads thousands grouped by no-break, thin or narrow spaces as one number, and ordinary spaces as separators", async () => {
    const text =
      "pop. 1\u202f000\u202f000, total 1\u00a0234,56 €, SI 1\u2009234.5; list 5 100 200 and 1 000 000";
    expect((await runSkill(textExtract, { text, kinds: ["numbers"], unique: false })).numbers).toEqual([
      1000000, 1234.56, 1234.5, 5, 100, 200, 1, 0, 0,
    ]);
  });

  it("leaves out a lone decimal comma, 1,5, which could be a list of two, as the description says", async () => {
    expect((await runSkill(textExtract, { text: "It costs 1,5 EUR", kinds: ["numbers"] })).numbers).toEqual(
      [],
    );
    expect(textExtract.result.shape.numbers.description).toMatch(/a lone 1,5 .* is left out/);
  });

  it("finds URLs on localhost and IPv6 hosts, which have no dot", async () => {
    const text = "Try http://localhost:8080/x, http://[::1]:3000/ or http://localhost.";
    expect((await runSkill(textExtract, { text, kinds: ["urls"] })).urls).toEqual([
      "http://localhost:8080/x",
      "http://[::1]:3000/",
      "http://localhost",
    ]);
  });

  it.each([
    "+33 1 23 45 67 89",
    "+1 (415) 555-0123",
    "+1 415-555-0123",
    "+4915123456789",
    "(020) 7946 0958",
    "020 7946 0958",
    "01.23.45.67.89",
    "415-555-0123",
    "415 555 0123",
    "415.555.0123",
    // Regression (skills audit, finding 2): groups of 5 or more digits after a +country code
    // were not found (their digits came out as numbers), and 1-800-555-0199 lost its 1.
    "+44 7911 123456",
    "+91 98765 43210",
    "+49 (0)30 123456",
    "+55 11 91234-5678",
    "+1.415.555.0123",
    "1-800-555-0199",
    "1 (800) 555-0199",
    "1 800 555 0199",
  ])("finds the phone number %s", async (phone) => {
    expect((await runSkill(textExtract, { text: `Call ${phone} today`, kinds: ["phones"] })).phones).toEqual([
      phone,
    ]);
  });

  // Regression (skills audit, finding 2): "+44 7911 123456" came out as the numbers 44, 7911
  // and 123456, and a Social Security number as a phone number.
  it("reads international numbers as phone numbers, not numbers, and no SSN or signed decimal as one", async () => {
    const text = "Call +44 7911 123456 or +91 98765 43210. SSN 123-45-6789; change +3.5 12345.";
    expect(await runSkill(textExtract, { text, kinds: ["phones", "numbers"] })).toEqual({
      phones: ["+44 7911 123456", "+91 98765 43210"],
      numbers: [123, 45, 6789, 3.5, 12345],
      counts: { phones: 2, numbers: 5 },
    });
    // Nor the tail of a longer dash-joined number.
    const phones = await runSkill(textExtract, { text: "ref 12-1-800-555-0199", kinds: ["phones"] });
    expect(phones.phones).toEqual([]);
  });

  it("does not read impossible dates", async () => {
    expect(
      await runSkill(textExtract, { text: "On 2024-02-30 and February 30, 2024.", kinds: ["dates"] }),
    ).toEqual({
      dates: [],
      counts: { dates: 0 },
    });
  });

  it.each([
    ["a run of letters", "a".repeat(1_000_000)],
    ["a dangling email", `x@${"a-".repeat(499_998)}`],
    ["dotted fragments", "a.".repeat(500_000)],
    ["quote-joined local parts", `${"a'".repeat(499_990)}@example.com`],
    ["digit groups after plus signs", "+12345678 1".repeat(90_000)],
    ["digit groups joined by no-break spaces", `${"111\u00a0".repeat(249_999)}1`],
  ])("stays fast on a million characters of %s (no regex backtracking blow-up)", async (_name, text) => {
    const started = performance.now();
    await runSkill(textExtract, { text });
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it("refuses an unknown kind", () => {
    expect(textExtract.params.safeParse({ text: "x", kinds: ["ssn"] }).success).toBe(false);
  });
});
