/**
 * A refusal only the dashboard makes (no session, a form without its CSRF token), shown as
 * a page. The API's errors stay in the core's table; these never reach `/v1`.
 */
export class PageError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    message: string,
  ) {
    super(message);
    this.name = "PageError";
  }
}
