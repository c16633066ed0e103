import { holdsCredentials, meantUrl, namesAnEndpoint, shownBaseUrl } from "../client/base-url.js";
import { warnOfUnknownVariables } from "../config.js";
import { createLogger } from "../logging.js";
import { holdStopSignals } from "../stop-signals.js";
import { commandConfig } from "./command-config.js";
import { parseCommandArgs, UsageError } from "./command-options.js";
import { MCP } from "./commands.js";
import { logCrashes } from "./crash-log.js";

const CREATE_KEY_HINT =
  "Create one with `skillport keys create --name NAME --scope full-access` (in a checkout: `npm run -s cli -- keys create …`) and set it in SKILLPORT_API_KEY.";

/**
 * `skillport mcp`: MCP over stdio for assistants that spawn a process. stdout carries
 * protocol messages only; logs go to stderr. The key comes from `SKILLPORT_API_KEY`,
 * and without a working one the process ends at once, saying how to create one. With
 * `--remote URL` it bridges to a running skillport over REST instead of running skills.
 */
export async function runMcp(args: string[]): Promise<number> {
  const { values } = parseCommandArgs(MCP, args);
  if (values.remote !== undefined && values["data-dir"] !== undefined) {
    // The bridge opens no store: a data dir given with it would be silently ignored.
    throw new UsageError(
      "skillport mcp: give --data-dir or --remote, not both (--remote runs nothing here).",
    );
  }
  if (values.remote !== undefined) checkRemoteUrl(values.remote);
  const secret = process.env.SKILLPORT_API_KEY?.trim();
  if (!secret) {
    console.error(`skillport mcp: SKILLPORT_API_KEY is not set. ${CREATE_KEY_HINT}`);
    return 1;
  }
  const config = commandConfig(MCP, values);
  const logger = createLogger(config.logLevel, 2);
  // From here on a signal stops the process as it stops once serving (`serveStdio`).
  const stopSignals = holdStopSignals(logger, { opensStore: values.remote === undefined });
  logCrashes("mcp", logger);
  warnOfUnknownVariables(logger);
  // Loaded only now: a missing key is reported without loading the core.
  const [{ openEmbedded, openRemote, serveStdio }, { missingStore }] = await Promise.all([
    import("../mcp/stdio.js"),
    import("../store/open-store.js"),
  ]);
  // No key works in a store that is not there, and opening it would create one: said as
  // `keys` and `learning` say it (one wording, `missingStore`).
  const missing = values.remote === undefined ? missingStore(config) : undefined;
  if (missing !== undefined) {
    console.error(`skillport mcp: ${missing}`);
    return 1;
  }
  const opened =
    values.remote === undefined
      ? await openEmbedded(config, secret, logger)
      : await openRemote(values.remote, secret, config.mcp, logger);
  if ("refused" in opened) {
    console.error(`skillport mcp: SKILLPORT_API_KEY does not work: ${opened.refused} ${CREATE_KEY_HINT}`);
    return 1;
  }
  await serveStdio(opened, config, logger, stopSignals);
  return 0;
}

/**
 * `--remote` names the server's base URL: not one without a scheme (`127.0.0.1:8080`),
 * and not its MCP endpoint or API path, which are easy to copy from elsewhere. A usage
 * error, found before the key is looked at, as any other option's value is.
 */
function checkRemoteUrl(baseUrl: string): void {
  let url: URL | undefined;
  try {
    url = new URL(baseUrl);
  } catch {
    // Said below.
  }
  // Read as meant, so that one without its scheme (`user:secret@host:8080`) is found too.
  const meant = meantUrl(baseUrl);
  if (meant !== undefined && holdsCredentials(meant)) {
    throw new UsageError(
      "skillport mcp: --remote must not hold a user name or password (the bridge authenticates with SKILLPORT_API_KEY alone, and would not send them)",
    );
  }
  if ((url?.protocol !== "http:" && url?.protocol !== "https:") || namesAnEndpoint(url)) {
    throw new UsageError(
      `skillport mcp: --remote must be the base URL of a skillport server, such as http://127.0.0.1:8080 (not …/mcp or …/v1), not ${shownBaseUrl(baseUrl)}`,
    );
  }
}
