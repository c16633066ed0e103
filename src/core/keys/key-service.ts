import { z } from "zod";
import type { Clock } from "../clock.js";
import { isoTimestamp } from "../clock.js";
import { ServiceError } from "../errors.js";
import { newId } from "../ids.js";
import { PLAN_LIMITS } from "../limits/plans.js";
import type { KeyStore } from "../ports.js";
import { parseOrThrow } from "../validation.js";
import { type ApiKey, ENVIRONMENTS, keyStatus, PLANS, SCOPES } from "./api-key.js";
import { generateSecret, hashSecret, isWellFormedSecret, secretLast4, secretPrefix } from "./secret.js";

const positiveInt = z.number().int().min(1).max(1_000_000_000);

export const CreateKeyInput = z
  .object({
    name: z.string().trim().min(1).max(100),
    scope: z.enum(SCOPES),
    plan: z.enum(PLANS).default("free"),
    limits: z.object({ perMinute: positiveInt, perDay: positiveInt }).optional(),
    environment: z.enum(ENVIRONMENTS).default("production"),
    owner: z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, "letters, digits, '.', '_' or '-', at most 64")
      .default("default"),
    expiresAt: z.iso.datetime({ offset: true }).optional(),
  })
  .superRefine((input, ctx) => {
    // contract.md: "an enterprise key carries its own two numbers"; other plans take theirs from the plan.
    if (input.plan === "enterprise" && !input.limits) {
      ctx.addIssue({
        code: "custom",
        path: ["limits"],
        message: "an enterprise key needs per-minute and per-day limits",
      });
    }
    if (input.plan !== "enterprise" && input.limits) {
      ctx.addIssue({ code: "custom", path: ["limits"], message: `the ${input.plan} plan has fixed limits` });
    }
  });
export type CreateKeyInput = z.input<typeof CreateKeyInput>;

/** A key as listings show it: no hash, the secret reduced to a prefix and its last four characters. */
export type KeyView = Omit<ApiKey, "hash">;

export function toKeyView({ hash: _hash, ...view }: ApiKey): KeyView {
  return view;
}

/** Creating, listing, revoking and checking API keys: the operations the dashboard and CLI share. */
export class KeyService {
  constructor(
    private readonly keys: KeyStore,
    private readonly clock: Clock,
  ) {}

  /** Creates a key; the returned secret exists nowhere else and is shown once. */
  async create(input: CreateKeyInput): Promise<{ key: KeyView; secret: string }> {
    const parsed = parseOrThrow(CreateKeyInput, input);
    const now = this.clock.now();
    if (parsed.expiresAt && Date.parse(parsed.expiresAt) <= now) {
      throw new ServiceError("invalid_request", {
        message: "expiresAt: must be in the future",
        details: [{ path: "expiresAt", message: "must be in the future" }],
      });
    }
    const secret = generateSecret(parsed.environment);
    const key: ApiKey = {
      id: newId("key"),
      name: parsed.name,
      scope: parsed.scope,
      plan: parsed.plan,
      limits: parsed.limits ?? PLAN_LIMITS[parsed.plan as "free" | "pro"],
      environment: parsed.environment,
      owner: parsed.owner,
      hash: hashSecret(secret),
      prefix: secretPrefix(secret),
      last4: secretLast4(secret),
      createdAt: isoTimestamp(now),
      lastUsedAt: null,
      expiresAt: parsed.expiresAt ? isoTimestamp(Date.parse(parsed.expiresAt)) : null,
      revokedAt: null,
    };
    await this.keys.insert(key);
    return { key: toKeyView(key), secret };
  }

  async list(): Promise<KeyView[]> {
    return (await this.keys.list()).map(toKeyView);
  }

  /** Revokes a key; it is refused from the next request on, by every process sharing the store. */
  async revoke(id: string): Promise<KeyView> {
    const key = await this.keys.findById(id);
    if (!key) throw new ServiceError("invalid_request", { message: `No API key has the id ${id}.` });
    await this.keys.revoke(id, isoTimestamp(this.clock.now()));
    return toKeyView((await this.keys.findById(id)) ?? key);
  }

  /**
   * The key a bearer secret belongs to, or an `invalid_api_key` error. A malformed or
   * mistyped secret is refused by its checksum, without a store lookup.
   */
  async authenticate(secret: string): Promise<ApiKey> {
    if (!isWellFormedSecret(secret)) throw new ServiceError("invalid_api_key");
    const key = await this.keys.findByHash(hashSecret(secret));
    const now = this.clock.now();
    if (!key || keyStatus(key, now) !== "active") {
      throw new ServiceError("invalid_api_key");
    }
    this.keys.markUsed(key.id, isoTimestamp(now));
    return key;
  }
}
