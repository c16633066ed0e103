import { promises as dns, type LookupAddress } from "node:dns";
import type { LookupFunction } from "node:net";
import type { Agent } from "undici";
import { SkillError } from "../../src/core/skills/skill.js";
import type { AddressPolicy } from "./address-policy.js";

/** Resolves a host name to all its addresses (the system resolver by default). */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

const systemResolver: Resolver = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

/** A connection refused by the address policy; its message names the address and why. */
export class AddressRefusedError extends SkillError {}

/**
 * A `lookup` for `net.connect` that resolves the name itself and refuses it when any
 * of its addresses breaks the policy. Checking here, after resolution and right before
 * the socket connects to exactly these addresses, defeats names that point to private
 * ranges and DNS rebinding between a check and the connection. Literal IP hosts never
 * reach a lookup; `refuseHost` judges those.
 */
export function createGuardedLookup(
  policy: AddressPolicy,
  resolve: Resolver = systemResolver,
): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (resolved) => {
        const family = options.family === "IPv4" ? 4 : options.family === "IPv6" ? 6 : options.family;
        const addresses =
          family === 4 || family === 6 ? resolved.filter((a) => a.family === family) : resolved;
        for (const { address } of addresses) {
          if (policy(address)) {
            // Neither the address nor its kind: the caller would learn what internal names
            // resolve to (an internal-DNS oracle). A literal address is judged in detail
            // before any lookup; the caller gave it.
            callback(
              new AddressRefusedError(`refused: ${hostname} resolves to an address that is not public`),
              [],
            );
            return;
          }
        }
        const first = addresses[0];
        if (!first) {
          callback(Object.assign(new Error(`no address for ${hostname}`), { code: "ENOTFOUND" }), []);
        } else if (options.all) {
          callback(null, addresses);
        } else {
          callback(null, first.address, first.family);
        }
      },
      (err: NodeJS.ErrnoException) => callback(err, []),
    );
  };
}

/** An undici Agent whose every new connection goes through the guarded lookup. */
export async function createGuardedAgent(policy: AddressPolicy, resolve?: Resolver): Promise<Agent> {
  const { Agent } = await import("undici");
  return new Agent({
    connect: { lookup: createGuardedLookup(policy, resolve), timeout: 10_000 },
    // Idle sockets are closed soon: this agent serves occasional calls, not a hot path.
    keepAliveTimeout: 4_000,
    keepAliveMaxTimeout: 30_000,
  });
}
