// Where a webhook may go: public addresses only (never the function's own network, its runtime
// API at 127.0.0.1:9001, the instance metadata service, a private network, nor an IPv6 form that
// carries an IPv4 address). One predicate for both checks: the delivery function's, as it
// connects, and config/events.cjs's, which requires this file when WEBHOOK_SUBSCRIBERS is read at
// packaging. Node strips the types of a required .ts file, so this one keeps to erasable syntax
// and imports nothing but node:net.
import { BlockList, isIP } from "node:net";

/** A block of addresses: its first address and its prefix length. */
export type AddressBlock = readonly [network: string, prefix: number];

/**
 * IPv4 blocks refused: every block of IANA's IPv4 Special-Purpose Address Registry, those it
 * marks globally reachable too (anycast services and AS112 are no subscriber), and multicast.
 * A block inside another one here (0.0.0.0/32, the /32s of 192.0.0.0/24, 192.88.99.2/32) is not
 * repeated.
 */
export const REFUSED_IPV4: readonly AddressBlock[] = [
  ["0.0.0.0", 8], // "this network"
  ["10.0.0.0", 8], // private use
  ["100.64.0.0", 10], // shared address space (carrier-grade NAT)
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link local, the instance metadata service
  ["172.16.0.0", 12], // private use
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // documentation
  ["192.31.196.0", 24], // AS112
  ["192.52.193.0", 24], // AMT
  ["192.88.99.0", 24], // 6to4 relay anycast, deprecated
  ["192.168.0.0", 16], // private use
  ["192.175.48.0", 24], // AS112 direct delegation
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // documentation
  ["203.0.113.0", 24], // documentation
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, 255.255.255.255 (limited broadcast) included
];

/**
 * IPv6 blocks refused: every block of IANA's IPv6 Special-Purpose Address Registry, multicast,
 * the deprecated site-local block, and each form that embeds an IPv4 address (mapped,
 * compatible, NAT64, 6to4, Teredo): the IPv4 address inside may be a private one, and a public
 * one is reachable as itself.
 */
export const REFUSED_IPV6: readonly AddressBlock[] = [
  ["::", 96], // unspecified, loopback, IPv4-compatible
  ["::ffff:0:0", 96], // IPv4-mapped
  ["64:ff9b::", 96], // NAT64, well-known prefix
  ["64:ff9b:1::", 48], // NAT64, local use
  ["100::", 64], // discard only
  ["100:0:0:1::", 64], // dummy prefix
  ["2001::", 23], // IETF protocol assignments, Teredo (2001::/32) among them
  ["2001:db8::", 32], // documentation
  ["2002::", 16], // 6to4
  ["2620:4f:8000::", 48], // AS112 direct delegation
  ["3fff::", 20], // documentation
  ["5f00::", 16], // segment routing SIDs
  ["fc00::", 7], // unique local
  ["fe80::", 10], // link local
  ["fec0::", 10], // site local, deprecated
  ["ff00::", 8], // multicast
];

/** Whether an address may be sent to; loopback only when allowed (`npm start`). */
export type AddressCheck = (address: string, allowLoopback?: boolean) => boolean;

/** A BlockList of blocks of one family. */
function blockListOf(blocks: readonly AddressBlock[], family: "ipv4" | "ipv6"): BlockList {
  const list = new BlockList();
  for (const [network, prefix] of blocks) list.addSubnet(network, prefix, family);
  return list;
}

/**
 * The check that refuses the given blocks (a test builds one that misses a block, to show its
 * walk of IANA's registries would notice). Each family has a list of its own: Node's BlockList
 * matches an IPv4 address against an IPv6 rule as if IPv4-mapped, so ::ffff:0:0/96 in a shared
 * list would refuse every IPv4 address.
 */
export function addressCheck(
  ipv4: readonly AddressBlock[],
  ipv6: readonly AddressBlock[],
): AddressCheck {
  const refused = { ipv4: blockListOf(ipv4, "ipv4"), ipv6: blockListOf(ipv6, "ipv6") };
  const loopback = {
    ipv4: blockListOf([["127.0.0.0", 8]], "ipv4"),
    ipv6: blockListOf([["::1", 128]], "ipv6"),
  };
  const check: AddressCheck = (address, allowLoopback = false) => {
    const family = isIP(address);
    if (family === 0) return false;
    const type = family === 6 ? "ipv6" : "ipv4";
    if (allowLoopback && loopback[type].check(address, type)) return true;
    return !refused[type].check(address, type);
  };
  return check;
}

const publicOnly = addressCheck(REFUSED_IPV4, REFUSED_IPV6);

/** Whether an address is one a webhook may be sent to: public, or loopback when allowed. */
export function isAllowedAddress(address: string, allowLoopback = false): boolean {
  return publicOnly(address, allowLoopback);
}
