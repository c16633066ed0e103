// Where the discovery benches find their outside data (../shared/data/README.md): read in
// place, never copied into the repository; absent data skips the bench with a message.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const DATA = fileURLToPath(new URL("../../shared/data/", import.meta.url));

export const CATALOG_FILES = {
  openapi: `${DATA}catalog/openapi-tools.jsonl.gz`,
  mcp: `${DATA}catalog/mcp-docker-registry.jsonl`,
};

/** The missing files, empty when the bench can run. */
export const missingCatalogFiles = () => Object.values(CATALOG_FILES).filter((path) => !existsSync(path));
