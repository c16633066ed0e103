import ipaddr from "ipaddr.js";

/**
 * Decides whether an outbound connection may go to an IP address. Returns why not (e.g.
 * "a private address"), or undefined when the address is allowed.
 */
export type AddressPolicy = (address: string) => string | undefined;

/**
 * Cloud metadata endpoints, named explicitly in refusals: AWS, GCP and Azure's instance
 * metadata (AWS over IPv6 too), and Azure's platform endpoint (WireServer), which answers
 * only inside Azure and is a public address, so no range would refuse it.
 */
const METADATA_ADDRESSES = new Set(["169.254.169.254", "fd00:ec2::254", "168.63.129.16"]);

/** ipaddr.js range names, as a refusal reads them. */
const RANGE_DESCRIPTIONS: Record<string, string> = {
  unspecified: "an unspecified address",
  broadcast: "a broadcast address",
  multicast: "a multicast address",
  linkLocal: "a link-local address",
  loopback: "a loopback address",
  carrierGradeNat: "a carrier-grade NAT (shared) address",
  private: "a private address",
  uniqueLocal: "a unique-local (private) address",
  reserved: "a reserved address",
};

/**
 * Only public unicast addresses: refuses loopback, private, link-local, unique-local,
 * CGNAT, multicast, unspecified, broadcast, reserved and cloud metadata addresses, and
 * IPv6 forms that embed or tunnel to IPv4 (6to4, Teredo, NAT64, IPv4-compatible) since
 * their IPv4 end cannot be checked. IPv4-mapped IPv6 addresses (::ffff:a.b.c.d) are
 * judged by the IPv4 address they carry.
 */
export const publicAddressesOnly: AddressPolicy = (address) => {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return "not a valid IP address";
  }
  if (METADATA_ADDRESSES.has(parsed.toNormalizedString()) || METADATA_ADDRESSES.has(parsed.toString())) {
    return "a cloud metadata address";
  }
  if (parsed.kind() === "ipv6" && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    const ipv4 = (parsed as ipaddr.IPv6).toIPv4Address().toString();
    const reason = publicAddressesOnly(ipv4);
    return reason && `mapped to ${ipv4}, ${reason}`;
  }
  const range = parsed.range();
  if (
    range === "unicast" &&
    parsed.kind() === "ipv6" &&
    (parsed as ipaddr.IPv6).parts.slice(0, 6).every((part) => part === 0)
  ) {
    // ::a.b.c.d, "IPv4-compatible" (deprecated by RFC 4291): some stacks still route it to IPv4.
    return "an IPv4-compatible address";
  }
  if (range === "unicast") return undefined;
  return RANGE_DESCRIPTIONS[range] ?? `a special-purpose address (${range})`;
};

/** Allows every address: used when the skill's config sets `allowPrivateNetworks`. */
export const anyAddress: AddressPolicy = () => undefined;

/**
 * Judges the host of a parsed URL before any connection. The WHATWG URL parser has
 * already normalised IPv4 in decimal, octal or hex (`http://2130706433/`,
 * `http://0x7f.1/`) to dotted form and bracketed IPv6 to its canonical text, so
 * checking the parsed `hostname` catches every literal spelling. Names under
 * `localhost` are loopback by definition (RFC 6761 section 6.3), whatever DNS says.
 * Returns the refusal message, or undefined when the host may be contacted (names are
 * judged again after DNS resolution).
 */
export function refuseHost(hostname: string, policy: AddressPolicy): string | undefined {
  const host = hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
  if (ipaddr.isValid(host)) {
    const reason = policy(host);
    return reason && `refused: ${host} is ${reason}`;
  }
  const name = host.toLowerCase().replace(/\.$/, "");
  if (name === "localhost" || name.endsWith(".localhost")) {
    const reason = policy("127.0.0.1");
    return reason && `refused: ${hostname} is a loopback name`;
  }
  return undefined;
}
