/**
 * A refusal only the dashboard makes (no session, a form without its CSRF token), shown as
 * a page. The API's errors stay in the core's table; these never reach `/v1`.
 */
export class PageError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    message: string,
    /**
     * Where the page's one button goes, when not back to the dashboard; `keepsDraft` when it
     * leads back to a form that was not sent, for dashboard.js to refill there.
     */
    readonly next?: { href: string; label: string; keepsDraft?: true },
  ) {
    super(message);
    this.name = "PageError";
  }
}
