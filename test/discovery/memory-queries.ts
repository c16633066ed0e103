/**
 * Held-out set for the memory skills (session 25): requests about the user's own facts and
 * preferences, the way people ask an assistant to remember, recall or forget them, and
 * near-misses that mention personal things or the words "remember", "save", "key" or "note"
 * but belong to another skill. Written before the memory skills' texts were changed and
 * NOT tuned on (the memory requests of paraphrase-queries.ts are the development set);
 * the near-misses guard against the memory skills taking requests that are not theirs.
 */
export const MEMORY_QUERIES: Record<string, string[]> = {
  "memory.set": [
    "for future reference, my dentist is Dr. Okafor",
    "I'm vegetarian, please bear that in mind when suggesting recipes",
    "my daughter's name is Priya, don't lose track of it",
    "store my preferred airline as KLM",
    "log that our sprint review happens every other Thursday",
  ],
  "memory.get": [
    "remind me which airline I said I prefer",
    "what's the name of my dentist that I mentioned?",
    "did I ever tell you my daughter's name?",
    "pull up the wifi password I had you keep",
    "what diet did I say I follow?",
  ],
  "memory.delete": [
    "please stop remembering my daughter's name",
    "clear out my preferred airline, I'm switching",
    "remove the dentist info you have on me",
    "throw away the note about the sprint review",
    "delete everything you stored under prefs:diet",
  ],
  "memory.list": [
    "which facts about me have you got stored?",
    "give me a rundown of all my saved preferences",
    "list what you've memorised for me",
    "what notes are you holding for me right now?",
  ],
  // Near-misses: personal or memory-sounding wording, another skill's job.
  "time.now": ["what's the time in Lisbon where I live?"],
  "time.convert": ["my call is at 9am my time in Lisbon, what's that in New York?"],
  "time.diff": ["how many days until my birthday on 2026-03-14?"],
  "time.add": ["remind me what the date will be 30 days after my start date, 2025-09-01"],
  "text.extract": [
    "pull the phone numbers out of my old contact notes: call 415-555-0123 or +44 20 7946 0958",
  ],
  "message.send": ["tell the team to remember the offsite is on Thursday"],
  "message.list": ["what did people say about my birthday in #general?"],
  "crypto.hash": ["hash my password with sha256 before I save it"],
  "id.uuid": ["generate a unique key for my new record"],
  "text.stats": ["count the words in my notes for the essay"],
  "http.request": ["fetch my profile from https://api.example.com/me"],
};
