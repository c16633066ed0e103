import type { ApiKey, Environment, Plan, Scope } from "../core/keys/api-key.js";

/** An `api_keys` row as both adapters read it (timestamps as ISO 8601 UTC strings). */
export interface KeyRow {
  id: string;
  name: string;
  scope: string;
  plan: string;
  limit_per_minute: number;
  limit_per_day: number;
  environment: string;
  owner: string;
  hash: string;
  prefix: string;
  last4: string;
  created_at: string;
  last_used_at: string | null;
  last_refused_at: string | null;
  expires_at: string | null;
  revoked_at: string | null;
  replaces: string | null;
}

/** The key a row holds. */
export function toApiKey(row: KeyRow): ApiKey {
  return {
    id: row.id,
    name: row.name,
    // The row was written from a typed ApiKey; these casts only restore its types.
    scope: row.scope as Scope,
    plan: row.plan as Plan,
    limits: { perMinute: row.limit_per_minute, perDay: row.limit_per_day },
    environment: row.environment as Environment,
    owner: row.owner,
    hash: row.hash,
    prefix: row.prefix,
    last4: row.last4,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    lastRefusedAt: row.last_refused_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    replaces: row.replaces,
  };
}
