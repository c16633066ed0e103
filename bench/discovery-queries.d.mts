/** Requests an agent might send to a large API catalog (see discovery-queries.mjs). */
export declare const DISCOVERY_QUERIES: readonly string[];
