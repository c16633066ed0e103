/**
 * Audit 25, finding 3: the questions an auditor asked of the memory skills after their texts
 * changed, with the skill each means. Most only read ("what do you know about me"), and
 * memory.delete, the one destructive memory skill, came first for two of them. Not tuned
 * on word for word: the memory skills' examples use other facts (job, city, allergies).
 */
/** The questions that only read: none of them may rank a destructive skill first. */
export const READ_ONLY_RECALL_QUERIES = [
  "what is my favourite color",
  "what do you know about me",
  "what is my favorite food",
  "what are my preferences",
  "what did I tell you about my diet",
  "show all saved keys",
];

export const RECALL_QUERIES: Record<string, string[]> = {
  "memory.get": READ_ONLY_RECALL_QUERIES.slice(0, 5),
  "memory.list": READ_ONLY_RECALL_QUERIES.slice(5),
  "memory.delete": ["clear my saved data"],
  "memory.set": ["remember my email is bob@example.com"],
};
