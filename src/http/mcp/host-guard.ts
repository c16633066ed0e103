import { ServiceError } from "../../core/errors.js";

const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]", "::1"];

export interface HostGuardOptions {
  /** The address the server listens on. */
  bindHost: string;
  /** Host names (or host:port) accepted besides the loopback names. */
  allowedHosts: readonly string[];
  /** Origins (scheme://host[:port]) accepted besides those of the allowed hosts. */
  allowedOrigins: readonly string[];
}

/**
 * Validates `Host` and `Origin` against DNS rebinding: a web page whose name an attacker
 * re-points at 127.0.0.1 reaches the server with the attacker's name in both headers.
 * Loopback names are always accepted; other names must be configured. On a server bound
 * beyond loopback with no names configured the Host cannot be judged, so only the Origin
 * of browser requests is checked (the start-up log says to configure the names).
 */
export class HostGuard {
  private readonly hostnames: Set<string>;
  private readonly origins: Set<string>;
  readonly checksHost: boolean;

  constructor({ bindHost, allowedHosts, allowedOrigins }: HostGuardOptions) {
    this.hostnames = new Set([...LOOPBACK_NAMES, ...allowedHosts.map(hostnameOf)]);
    this.origins = new Set(allowedOrigins.map((origin) => origin.toLowerCase().replace(/\/+$/, "")));
    this.checksHost = allowedHosts.length > 0 || LOOPBACK_NAMES.includes(bindHost.toLowerCase());
  }

  /**
   * Throws `host_not_allowed` (403) for a Host or Origin this server does not answer to,
   * and `invalid_request` (400) for a Host that names no host at all.
   */
  check(host: string | undefined, origin: string | undefined): void {
    if (host !== undefined && !formsUrl(host)) {
      throw new ServiceError("invalid_request", {
        message: `The Host header ${JSON.stringify(host.slice(0, 100))} is not a host name with an optional port.`,
      });
    }
    if (this.checksHost && (host === undefined || !this.hostnames.has(hostnameOf(host)))) {
      throw new ServiceError("host_not_allowed", {
        message: `The Host header ${JSON.stringify(host ?? "")} is not one this server answers to (set SKILLPORT_ALLOWED_HOSTS).`,
      });
    }
    if (origin !== undefined && !this.allowsOrigin(origin)) {
      throw new ServiceError("host_not_allowed", {
        message: `Requests from the origin ${JSON.stringify(origin)} are not allowed (set SKILLPORT_ALLOWED_ORIGINS).`,
      });
    }
  }

  private allowsOrigin(origin: string): boolean {
    const normalised = origin.toLowerCase();
    if (this.origins.has(normalised)) return true;
    try {
      return this.hostnames.has(new URL(normalised).hostname);
    } catch {
      return false; // "null" and other opaque origins
    }
  }
}

/** `Example.com:8080` → `example.com`; `[::1]:80` → `[::1]`. */
function hostnameOf(host: string): string {
  const lower = host.trim().toLowerCase();
  if (lower.startsWith("[")) return lower.slice(0, lower.indexOf("]") + 1);
  const colon = lower.indexOf(":");
  return colon === -1 ? lower : lower.slice(0, colon);
}

/**
 * Whether the SDK's transport can build the request's URL from `host`, by its rule
 * (@hono/node-server's `buildUrl`): the URL's host name must be the Host without its port.
 * One it cannot (`localhost:abc`, a port past 65535, `host:8080/x`) it answered 400 with
 * an empty body, no error in the contract's shape.
 */
function formsUrl(host: string): boolean {
  try {
    return new URL(`http://${host}/`).hostname === host.replace(/:\d+$/, "").toLowerCase();
  } catch {
    return false;
  }
}
