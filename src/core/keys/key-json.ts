import { z } from "zod";
import { ENVIRONMENTS, KEY_STATUSES, type KeyStatus, PLANS, SCOPES } from "./api-key.js";
import type { KeyView } from "./key-service.js";

const Timestamp = z.iso.datetime({ offset: true });

/**
 * A key as `skillport keys list --json` (and `create`, `edit`, `roll --json`) prints it: the
 * one definition of a key's public shape, in the API's snake_case. Never the secret nor its
 * hash; `status` is worked out with the core's clock (`KeyService.statusOf`).
 */
export const KeyJson = z.strictObject({
  id: z.string(),
  name: z.string(),
  scope: z.enum(SCOPES),
  plan: z.enum(PLANS),
  limits: z.strictObject({ per_minute: z.number().int(), per_day: z.number().int() }),
  owner: z.string(),
  environment: z.enum(ENVIRONMENTS),
  prefix: z.string().describe("The first characters of the secret, to recognise it"),
  last4: z.string().describe("The last four characters of the secret"),
  created_at: Timestamp,
  last_used_at: Timestamp.nullable(),
  last_refused_at: Timestamp.nullable().describe(
    "The latest request refused because the key was revoked or had expired: a client still using it",
  ),
  expires_at: Timestamp.nullable(),
  revoked_at: Timestamp.nullable(),
  replaces: z
    .string()
    .nullable()
    .describe("The id of the key a roll replaced with this one; null for a key created anew"),
  status: z.enum(KEY_STATUSES),
});
export type KeyJson = z.output<typeof KeyJson>;

/** A key in the shape `KeyJson` defines, its members in that order. */
export function toKeyJson(key: KeyView, status: KeyStatus): KeyJson {
  return {
    id: key.id,
    name: key.name,
    scope: key.scope,
    plan: key.plan,
    limits: { per_minute: key.limits.perMinute, per_day: key.limits.perDay },
    owner: key.owner,
    environment: key.environment,
    prefix: key.prefix,
    last4: key.last4,
    created_at: key.createdAt,
    last_used_at: key.lastUsedAt,
    last_refused_at: key.lastRefusedAt,
    expires_at: key.expiresAt,
    revoked_at: key.revokedAt,
    replaces: key.replaces,
    status,
  };
}
