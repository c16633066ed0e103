/**
 * How an agent would plainly ask for each built-in skill. Each must rank its skill
 * first among all built-ins: if it does not, the skill's description or tags fail the
 * agents who will search for it.
 */
export const OBVIOUS_QUERIES: Record<string, string[]> = {
  "message.send": [
    "send a message to a channel",
    "post a note to the alerts channel",
    "notify the team",
    "tell the team the build is done",
    "inform everyone the build is done",
  ],
  "message.list": ["list the messages in a channel", "read my recent messages"],
  "math.evaluate": [
    "evaluate a math expression",
    "calculate 2 to the power of 10",
    "compute the square root of 2",
    "what is 17 times 23",
    "multiply 17 by 23",
  ],
  "units.convert": [
    "convert 5 kilometers to miles",
    "unit conversion from celsius to fahrenheit",
    "inches in a meter",
  ],
  "util.wait": ["wait for 5 seconds", "sleep or pause before continuing"],
  "http.request": ["make an HTTP request to a URL", "fetch a web page", "call a REST API endpoint"],
  "json.query": ["query a JSON document with an expression", "extract a field from JSON data"],
  "json.validate": ["validate JSON against a JSON Schema", "check that data matches a schema"],
  "csv.to_json": ["convert CSV to JSON", "parse a CSV file into rows"],
  "time.now": ["what time is it now", "current date and time in Tokyo"],
  "time.convert": ["convert a time between time zones", "what is 9am New York time in London"],
  "time.add": ["add 3 days to a date", "what date is two weeks from now"],
  "time.diff": ["how many days between two dates", "difference between two timestamps"],
  "text.stats": ["count the words in a text", "text statistics and reading time"],
  "text.extract": ["extract email addresses from text", "find all URLs in this text"],
  "crypto.hash": ["compute the SHA-256 hash of a string", "HMAC signature of a message"],
  "encoding.convert": ["base64 encode a string", "decode this base64", "URL-encode a string"],
  "id.uuid": ["generate a UUID", "create a unique identifier"],
  "memory.set": ["remember a value for later", "store a key value pair in memory"],
  "memory.get": ["recall a value I stored earlier", "get the value of a key from memory"],
  "memory.delete": ["forget a stored value", "delete a key from memory"],
  "memory.list": ["list the keys stored in memory", "which keys have I remembered so far"],
};
