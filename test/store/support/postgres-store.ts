import { silentLogger } from "../../../src/core/logger.js";
import type { Store } from "../../../src/core/ports.js";
import { openPostgresStore } from "../../../src/store/postgres/index.js";
import { openRedisLimiter } from "../../../src/store/redis/index.js";
import { dropNamespace, type ScaleOutServices, uniqueNamespace } from "../../support/scale-out-services.js";

/**
 * A PostgreSQL + Redis store of its own: a fresh schema and Redis key prefix, so it starts
 * empty. `open` gives more stores on the same namespace (other replicas); `cleanup` closes
 * them all and drops the namespace.
 */
export async function makePostgresStore(services: ScaleOutServices) {
  const namespace = uniqueNamespace();
  const opened: Store[] = [];
  const open = async (): Promise<Store> => {
    const limiter = await openRedisLimiter({ redisUrl: services.redisUrl, keyPrefix: namespace.keyPrefix });
    const store = await openPostgresStore({
      databaseUrl: services.databaseUrl,
      schema: namespace.schema,
      limiter,
      poolSize: 4,
      logger: silentLogger,
    });
    opened.push(store);
    return store;
  };
  const store = await open();
  return {
    store,
    open,
    namespace,
    async cleanup() {
      await Promise.all(opened.map((s) => s.close()));
      await dropNamespace(services, namespace);
    },
  };
}
