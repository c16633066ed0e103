import { SIGN_IN_LINK_TTL_MS } from "../../core/admin/admin-auth.js";

/**
 * What `serve` prints on its console for a one-time sign-in link, like a notebook server.
 * Its own module so that the README's copy of it is checked against it
 * (test/readme-sign-in-link.test.ts): it is the first thing a new user reads.
 */
export function signInLinkText(url: string): string {
  return `\nskillport dashboard: sign in with this one-time link (a new one is printed after each use):\n\n    ${url}\n\nIt works for ${SIGN_IN_LINK_TTL_MS / 60_000} minutes; opening it later prints a new one here.\nSet SKILLPORT_ADMIN_TOKEN to sign in with a fixed token instead.\n\n`;
}
