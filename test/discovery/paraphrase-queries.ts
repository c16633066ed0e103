/**
 * Development set for ranking the built-in skills: requests a user would make of an
 * assistant, each labelled with the skill that answers it, worded WITHOUT the distinctive
 * words of that skill's description, tags or examples (terse, chatty and jargon alike).
 * Unlike OBVIOUS_QUERIES, these test whether discovery finds a skill from what it does
 * rather than from how it is described. Ranking changes were tuned on this set; the
 * held-out set (audit-queries.ts) was kept for the final figures.
 */
export const PARAPHRASE_QUERIES: Record<string, string[]> = {
  "message.send": [
    "ping #releases that v2.3 is out",
    "let the support crew know the outage is over",
    "drop a heads-up in the marketing room: launch moved to Friday",
    "broadcast to everyone that the office is closed on Monday",
    "can you give the backend squad a shout that staging is back?",
  ],
  "message.list": [
    "anything new in #ops since this morning?",
    "catch me up on what the team has been saying",
    "what were the last few updates on the releases board?",
    "did anyone reply in the support room?",
    "scroll back through older chatter on the alerts board",
  ],
  "math.evaluate": [
    "what's 1234 * 5678",
    "17% tip on an $86.40 bill?",
    "how much is (450 + 120) / 3",
    "sum of 19.99, 4.50 and 12.75",
    "log base 2 of 4096",
  ],
  "units.convert": [
    "how many cups is 500 ml",
    "6 foot 2 in centimetres",
    "my oven says 180C, what's that in Fahrenheit?",
    "marathon distance in yards",
    "how many gigabytes is 8000 megabytes",
  ],
  "util.wait": [
    "hang on for 15 seconds",
    "hold for a minute, then carry on",
    "do nothing for 3 seconds",
    "stall for five seconds before the next step",
    "cool down 2 s between calls so we don't get throttled",
  ],
  "http.request": [
    "curl https://status.example.org",
    "grab the html of example.com",
    "ping this endpoint and tell me the status code: https://example.net/health",
    "is github.com responding right now?",
    "submit this form to https://hooks.example.com/intake as a POST",
  ],
  "json.query": [
    "from this response, give me just the email of every customer",
    "which products in this array cost more than 50?",
    "how many entries are in the items array of this payload?",
    "pluck the name from each object in this list",
    "sort these users by signup date and give me the newest one",
  ],
  "json.validate": [
    "does this object have all the required properties?",
    "confirm this payload conforms to the draft-07 spec I gave you",
    "is 'age' allowed to be a string here, according to the contract?",
    "make sure the generated output matches the expected shape",
    "lint this config file against its type definitions",
  ],
  "csv.to_json": [
    "turn this excel export into objects",
    "read these comma separated values into records",
    "here's a semicolon-delimited statement from our bank, structure it for me",
    "make an array of objects out of this header line and the lines under it",
    "load this tab delimited dump",
  ],
  "time.now": [
    "what day is it?",
    "what's the hour in Singapore at the moment?",
    "are the clocks on summer hours in London right now?",
    "which week of the year are we in?",
    "what year is it",
  ],
  "time.convert": [
    "3pm in LA is what in Singapore?",
    "my flight lands at 07:40 CET, what's that for someone in Chicago?",
    "epoch 1650000000 as a human date",
    "when is noon GMT in India?",
    "the webinar starts at 18:00 Sydney time; what hour is that on the US east coast?",
  ],
  "time.add": [
    "what day will it be 100 days from today",
    "my warranty lasts 18 months from purchase on 2024-02-10, when does it run out?",
    "two weeks before Christmas 2025 is which day",
    "shift 2025-01-31 forward by one month",
    "when is 6 weeks after next Monday",
  ],
  "time.diff": [
    "how many days till Christmas",
    "how long have I been employed if I started on 2019-04-01",
    "number of hours from 09:15 to 17:40",
    "how much time has passed since the moon landing on 1969-07-20",
    "days to go before my exam on 2025-12-12",
  ],
  "text.stats": [
    "how many minutes to skim this article?",
    "is my abstract under the 250 limit?",
    "what terms come up most often in this transcript?",
    "tally the sentences and paragraphs in this draft",
    "is this tweet too long for 280?",
  ],
  "text.extract": [
    "grab every @handle and #tag from these tweets",
    "which websites are referenced in this article",
    "get me the mobile numbers from this signature",
    "scrape the dates out of this meeting transcript",
    "collect all the e-mail addresses in this thread",
  ],
  "crypto.hash": [
    "sha-1 of 'password123'",
    "I need a SHA-512 of this string",
    "produce an integrity value for this file so I can compare it later",
    "keyed MAC of this body with secret abc",
    "did this Stripe event really come from Stripe? here's the secret and the header",
  ],
  "encoding.convert": [
    "what does 'SGVsbG8gd29ybGQ=' say",
    "escape this query string parameter: name=José & co",
    "show me the bytes of 'é' in hexadecimal",
    "unpack this JWT header: eyJhbGciOiJIUzI1NiJ9",
    "b64 this for me: user:pass",
  ],
  "id.uuid": [
    "give me a fresh primary key for the orders table",
    "mint 3 v4 tokens to use as correlation keys",
    "I need a new request ID",
    "make 20 distinct opaque keys for test rows",
    "a sortable v7 key for a new row",
  ],
  "memory.set": [
    "note that my time zone is Europe/Lisbon for next time",
    "keep in mind that I prefer metric units",
    "from now on, call me Sam",
    "jot down that the staging password rotates on Fridays",
    "make a record: the project codename is Falcon",
  ],
  "memory.get": [
    "what's my time zone again? I told you before",
    "what was the project codename I gave you?",
    "fetch the staging host I asked you to keep",
    "do you still have my shipping address on file?",
    "retrieve the entry under user:sam:lang",
  ],
  "memory.delete": [
    "drop the note about my old phone number",
    "wipe the codename entry, it's no longer relevant",
    "I don't want you keeping my birthday anymore",
    "purge user:sam:lang",
    "scrap what you had on my previous employer",
  ],
  "memory.list": [
    "what have you kept about me so far?",
    "show every entry you've got under user:sam:",
    "enumerate everything I've asked you to hold on to",
    "which notes do you have on file for this project?",
    "page through all the entries you hold for me",
  ],
};
