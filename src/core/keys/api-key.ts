/** contract.md, "API keys". */
export const SCOPES = ["read-only", "full-access"] as const;
export type Scope = (typeof SCOPES)[number];

export const PLANS = ["free", "pro", "enterprise"] as const;
export type Plan = (typeof PLANS)[number];

export const ENVIRONMENTS = ["production", "staging", "development"] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

/** Requests allowed in each of the two fixed windows. */
export interface KeyLimits {
  perMinute: number;
  perDay: number;
}

/** An API key as stored: never the secret, only its SHA-256. */
export interface ApiKey {
  id: string;
  name: string;
  scope: Scope;
  plan: Plan;
  limits: KeyLimits;
  environment: Environment;
  owner: string;
  /** Hex SHA-256 of the full secret. */
  hash: string;
  /** The first characters of the secret, for recognising it in listings. */
  prefix: string;
  /** The last four characters of the secret. */
  last4: string;
  createdAt: string;
  lastUsedAt: string | null;
  /**
   * The latest request refused because the key no longer works (revoked, or expired: a
   * rolled key after its grace). Written at most every 30 seconds per process, as
   * `lastUsedAt` is; it tells an administrator that a client still uses a key they ended.
   */
  lastRefusedAt: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
  /** The key a roll replaced with this one (which a roll gave an expiry); null for a key created anew. */
  replaces: string | null;
}

export const KEY_STATUSES = ["active", "revoked", "expired"] as const;
export type KeyStatus = (typeof KEY_STATUSES)[number];

/** Whether a key still opens the API at `nowMs`; the one place revocation and expiry are judged. */
export function keyStatus(key: Pick<ApiKey, "revokedAt" | "expiresAt">, nowMs: number): KeyStatus {
  if (key.revokedAt !== null) return "revoked";
  if (key.expiresAt !== null && Date.parse(key.expiresAt) <= nowMs) return "expired";
  return "active";
}
