/**
 * Held-out set for ranking the built-in skills: the 44 requests of audit 25 (finding 1),
 * two per skill, written by the auditor to avoid the words of the skill descriptions,
 * copied verbatim. Ranking changes were NOT tuned on these (paraphrase-queries.ts is the
 * development set); they measure whether a change generalises beyond the set it was tuned on.
 */
export const AUDIT_QUERIES: Record<string, string[]> = {
  "message.send": [
    "Let the on-call folks know in #incidents that the database migration finished",
    "drop a line to the design team saying the mockups are ready",
  ],
  "message.list": [
    "what did people post in #incidents today?",
    "show me what's been said in the ops room lately",
  ],
  "math.evaluate": ["what's 15% of 2,340?", "work out 3.5 * (12 + 7) / 4 for me"],
  "units.convert": ["how many pounds is 72 kilos?", "I'm driving at 100 km/h, what's that in mph?"],
  "util.wait": ["hold off for half a minute before trying again", "give it 10 seconds and then check again"],
  "http.request": [
    "download the contents of https://example.com/status.json",
    "hit the GitHub API to see the latest release of nodejs/node",
  ],
  "json.query": [
    "from this API response, pull out the names of all users older than 30",
    "get every order id from this payload where the total is over 100",
  ],
  "json.validate": [
    "does this config conform to our schema?",
    "make sure this payload has all the fields the spec says are required",
  ],
  "csv.to_json": [
    "turn this spreadsheet export into a list of records",
    "here's a tab-separated dump of our sales, make it structured data",
  ],
  "time.now": ["what's today's date?", "what time is it in Sydney right now?"],
  "time.convert": [
    "our standup is 10:00 Pacific, when is that for my colleague in Berlin?",
    "turn the timestamp 1714573800 into a readable date in Tokyo time",
  ],
  "time.add": [
    "when does my 45-day trial that started on 2025-03-03 end?",
    "the invoice is due 6 weeks after June 1, which day is that?",
  ],
  "time.diff": [
    "how old is someone born on 1990-07-14?",
    "how many weeks are left until my wedding on 2026-06-20?",
  ],
  "text.stats": [
    "how long is this essay and how long will it take to read?",
    "is this paragraph under 300 words?",
  ],
  "text.extract": [
    "pull all the contact emails and phone numbers out of this signature block",
    "list every link mentioned in this newsletter",
  ],
  "crypto.hash": [
    "give me the md5 checksum of this file content",
    "verify the GitHub webhook signature for this payload with our secret",
  ],
  "encoding.convert": ["what does this base64 string say: aGVsbG8=", "turn 'hello world' into hex"],
  "id.uuid": ["I need a random ID for a new database row", "make me 5 GUIDs"],
  "memory.set": [
    "remember that my favourite colour is teal",
    "save my preference: reply in French from now on",
  ],
  "memory.get": [
    "what did I tell you my favourite colour was?",
    "look up the deploy target I saved last week",
  ],
  "memory.delete": ["forget my home address", "erase what you know about my project deadline"],
  "memory.list": ["what do you remember about me?", "show all the things you've saved so far"],
};
