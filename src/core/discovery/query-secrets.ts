import { maskWorkingSecrets } from "../keys/secret.js";
import { REDACTED } from "../skills/credential-names.js";
import { textWithoutCredentials } from "../skills/url-credentials.js";

/**
 * A token after `Bearer`, as an `Authorization` value is written into free text
 * (`… header Authorization: Bearer ghp_…`): a run of RFC 6750 token characters, 8 or
 * more, holding a digit or a token's punctuation, so that words after it ("bearer token",
 * "Bearer authentication") are not taken for one.
 */
const BEARER_TOKEN = /(?<![\w-])(bearer\s+)(?=[\w.~+/=-]{8})(?=[\w.~+/=-]*[\d_.~+/=-])[\w.~+/=-]+/gi;

/**
 * A discover query with the secrets it may hold masked, each by the rule that masks it in
 * execution records: a working skillport secret (`maskWorkingSecrets`), the credentials of
 * a URL or of a `name=value` member (`textWithoutCredentials`: `?api_key=…`,
 * `https://user:pw@…`), and the token after `Bearer`. Agents write context into queries,
 * and an owner's learned queries are shown to each of the owner's keys, read-only ones
 * included (`match.usage.query`), so none may carry a secret there.
 */
export function queryWithoutSecrets(query: string): string {
  const masked = textWithoutCredentials(maskWorkingSecrets(query));
  return masked.replace(BEARER_TOKEN, (_token, bearer: string) => `${bearer}${REDACTED}`);
}

/**
 * True when the query holds a secret (`queryWithoutSecrets` would change it): such a query
 * is neither learned nor shown (and it is a poor example of what an agent asks anyway).
 */
export function holdsSecret(query: string): boolean {
  return queryWithoutSecrets(query) !== query;
}
