import type { KeyLimits, Plan } from "../keys/api-key.js";

/** interface-spec.md, "Limits": requests per minute and per day by plan. */
export const PLAN_LIMITS: Record<Exclude<Plan, "enterprise">, KeyLimits> = {
  free: { perMinute: 60, perDay: 1_000 },
  pro: { perMinute: 600, perDay: 50_000 },
};

export const MINUTE_SECONDS = 60;
export const DAY_SECONDS = 86_400;
