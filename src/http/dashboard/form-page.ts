import { dashboardPath } from "./sign-in-pages.js";

/** A form's POST path, and the page showing that form: the same path unless listed here. */
const FORM_PAGES: [RegExp, string][] = [
  [/^\/dashboard\/keys$/, "/dashboard/keys/new"],
  [/^\/dashboard\/keys\/search$/, "/dashboard/keys"],
];
/** Forms posted to the path of the page that shows them. */
const SAME_PATH = /^\/dashboard\/keys\/[^/]+\/(?:edit|roll|revoke)$/;

/**
 * The page whose form was posted to `postUrl`, to go back to once signed in again (a form
 * posted after the session ended): the overview for a POST no form page is known for.
 */
export function formPageOf(postUrl: string): string {
  const path = postUrl.split("?")[0] ?? "";
  const listed = FORM_PAGES.find(([pattern]) => pattern.test(path))?.[1];
  const page = listed ?? (SAME_PATH.test(path) ? path : undefined);
  return (page && dashboardPath(page)) ?? "/dashboard";
}
