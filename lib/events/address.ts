// Where a webhook may go: public addresses only on AWS (never the function's own network, its
// runtime API at 127.0.0.1:9001, the instance metadata service or a private network).
import { BlockList, isIP } from "node:net";

const loopback = new BlockList();
loopback.addSubnet("127.0.0.0", 8, "ipv4");
loopback.addAddress("::1", "ipv6");

const notPublic = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8], // "this network"
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8],
  ["169.254.0.0", 16], // link-local, the metadata service
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
] as const) {
  notPublic.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7], // unique local
  ["fe80::", 10], // link-local
  ["ff00::", 8], // multicast
  ["64:ff9b::", 96], // NAT64 of any IPv4 address
] as const) {
  notPublic.addSubnet(network, prefix, "ipv6");
}

/** The IPv4 address an IPv4-mapped IPv6 address (`::ffff:10.0.0.1`) stands for. */
const unmapped = (address: string) => /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];

/** Whether an address is a loopback one (127.0.0.0/8, ::1). */
export function isLoopback(address: string): boolean {
  const v4 = unmapped(address) ?? address;
  return loopback.check(v4, isIP(v4) === 6 ? "ipv6" : "ipv4");
}

/** Whether an address is one a webhook may be sent to: public, or loopback when allowed. */
export function isAllowedAddress(address: string, allowLoopback = false): boolean {
  const v4 = unmapped(address) ?? address;
  const family = isIP(v4);
  if (family === 0) return false;
  if (allowLoopback && isLoopback(v4)) return true;
  return !notPublic.check(v4, family === 6 ? "ipv6" : "ipv4");
}
