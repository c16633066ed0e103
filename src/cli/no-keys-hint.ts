import type { StoreConfig } from "../config.js";
import type { KeyService } from "../core/keys/key-service.js";
import { describeStore } from "../store/open-store.js";
import { storeKindOf } from "../store/store-kinds.js";

/**
 * What `serve` says on its console when its store holds no API key at all: a new user's
 * server then answers every `/v1` and `/mcp` request 401, and the way out (a key created in
 * this very store) is not in any log line. Undefined once any key exists, revoked ones
 * included: whoever made one knows how.
 */
export async function noKeysHint(
  keys: Pick<KeyService, "counts">,
  config: Pick<StoreConfig, "dataDir" | "databaseUrl">,
): Promise<string | undefined> {
  const counts = await keys.counts({ kind: "all" });
  if (Object.values(counts).some((count) => count > 0)) return undefined;
  // In this very store, or the key works nowhere this server looks.
  const sqlite = storeKindOf(config) === "sqlite";
  const command = `skillport keys create --name NAME --scope full-access${sqlite ? ` --data-dir ${config.dataDir}` : ""}`;
  const where = sqlite ? "" : ", with this server's SKILLPORT_DATABASE_URL and SKILLPORT_REDIS_URL set";
  return (
    `\nskillport: ${describeStore(config)} holds no API key yet, so /v1 and /mcp answer 401. Create one with\n\n` +
    `    ${command}\n\n` +
    `(in a checkout: npm run -s cli -- keys create …${where}), or on the dashboard's API Keys page.\n\n`
  );
}
