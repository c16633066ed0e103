import type { Skillport } from "../../src/core/skillport.js";
import type { HttpServer } from "../../src/http/server.js";

/** The cookie of a dashboard session signed in now, through the sign-in link's token, in process. */
export async function signedInCookie(http: HttpServer, skillport: Skillport): Promise<string> {
  const token = skillport.admin.issueSignInToken();
  const signedIn = await http.app.inject({ method: "GET", url: `/dashboard/sign-in?token=${token}` });
  return String(signedIn.headers["set-cookie"]).split(";")[0] ?? "";
}

/** `url` fetched (GET, in process) in a dashboard session signed in just before (`signedInCookie`). */
export async function signedInGet(http: HttpServer, skillport: Skillport, url: string) {
  const cookie = await signedInCookie(http, skillport);
  return http.app.inject({ method: "GET", url, headers: { cookie } });
}
