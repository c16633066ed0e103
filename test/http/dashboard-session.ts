import type { Skillport } from "../../src/core/skillport.js";
import type { buildHttpServer } from "../../src/http/server.js";

/** The cookie of a dashboard session signed in now, through the sign-in link's token, in process. */
export async function signedInCookie(
  http: ReturnType<typeof buildHttpServer>,
  skillport: Skillport,
): Promise<string> {
  const token = skillport.admin.issueSignInToken();
  const signedIn = await http.app.inject({ method: "GET", url: `/dashboard/sign-in?token=${token}` });
  return String(signedIn.headers["set-cookie"]).split(";")[0] ?? "";
}
