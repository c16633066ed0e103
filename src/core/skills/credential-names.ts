/**
 * The last words of the names under which requests carry credentials: HTTP headers
 * (`Authorization`, `Proxy-Authorization`, `Cookie`, `X-Api-Key`, `X-Auth-Token`), URL
 * query members (`token`, `api_key`, `access_token`, `password`, `sig`) and form fields
 * alike. Judging by the last word catches the many spellings (`X-Goog-Api-Key`,
 * `client_secret`, `accessToken`, `X-Hub-Signature-256`) at the cost of masking a few
 * values that were not secret (`Idempotency-Key`), which costs a reader of a record little;
 * a credential shown costs its owner the credential.
 */
const CREDENTIAL_WORDS: ReadonlySet<string> = new Set([
  "apikey",
  // OpenWeatherMap's API key (`?appid=`), in many an agent's first demo.
  "appid",
  "auth",
  "authentication",
  "authorization",
  "cookie",
  "credential",
  // HubSpot's API key (`?hapikey=`).
  "hapikey",
  "jwt",
  "key",
  "otp",
  "pass",
  "passphrase",
  "passwd",
  "password",
  "pwd",
  "secret",
  "session",
  "sessionid",
  "sid",
  "sig",
  "signature",
  "token",
]);

/** What stands in for a masked value. */
export const REDACTED = "[redacted]";

/**
 * Whether a header, query member or field of this name carries a credential: its last
 * word (camelCase, `-`, `_` and `.` separate words; a number such as `-256` or a version
 * such as `-V2` is skipped, and so are digits the word ends with: `X-Key2`), or that word
 * without a plural `s`, is one of CREDENTIAL_WORDS.
 */
export function isCredentialName(name: string): boolean {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== "" && !/^v?\d+$/.test(word));
  const last = words.at(-1)?.replace(/\d+$/, "");
  if (last === undefined) return false;
  return CREDENTIAL_WORDS.has(last) || (last.endsWith("s") && CREDENTIAL_WORDS.has(last.slice(0, -1)));
}

/** A query member's name as a server reads it (`+` is a space); as written when it is not valid. */
export function decodedName(name: string): string {
  try {
    return decodeURIComponent(name.replaceAll("+", " "));
  } catch {
    return name;
  }
}
