// Unit: which addresses a webhook may go to, held against IANA's Special-Purpose Address
// Registries (a copy in tests/helpers/fixtures, since the registries are not fetched here). The
// send-time predicate and the packaging-time check of WEBHOOK_SUBSCRIBERS (config/events.cjs)
// walk every block, and each must refuse what the other refuses.
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { isIP } from "node:net";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  type AddressCheck,
  REFUSED_IPV4,
  REFUSED_IPV6,
  addressCheck,
  isAllowedAddress,
} from "../../../lib/events/address.js";

const root = fileURLToPath(new URL("../../..", import.meta.url));
const require = createRequire(import.meta.url);
const { readSubscribers } = require("../../../config/events.cjs") as {
  readSubscribers: (env: Record<string, string>) => { name: string; url: string }[];
};

interface Registry {
  lastUpdated: string;
  blocks: { prefix: string; name: string }[];
}
const registries = JSON.parse(
  readFileSync(`${root}tests/helpers/fixtures/iana-special-purpose.json`, "utf8"),
) as { ipv4: Registry; ipv6: Registry };

/** An address as a number: 32 bits for IPv4, 128 for IPv6 (written without embedded IPv4). */
function toNumber(address: string): bigint {
  if (isIP(address) === 4) {
    return address.split(".").reduce((value, part) => (value << 8n) | BigInt(part), 0n);
  }
  const [head = "", tail] = address.split("::");
  const groups = (text: string) => (text === "" ? [] : text.split(":"));
  const written = [...groups(head), ...groups(tail ?? "")];
  const all =
    tail === undefined
      ? written
      : [...groups(head), ...Array(8 - written.length).fill("0"), ...groups(tail)];
  return all.reduce((value, group) => (value << 16n) | BigInt(`0x${group}`), 0n);
}

/** A number as an address of the family that has `bits` bits. */
function toAddress(value: bigint, bits: 32 | 128): string {
  const [width, count, radix, separator] = bits === 32 ? [8n, 4, 10, "."] : [16n, 8, 16, ":"];
  const mask = (1n << width) - 1n;
  const parts = Array.from({ length: count }, (_, i) =>
    ((value >> (width * BigInt(count - 1 - i))) & mask).toString(radix),
  );
  return parts.join(separator);
}

/** A block's first, middle and last addresses (one address for a /32 or /128). */
function samples(prefix: string): string[] {
  const [network = "", length = ""] = prefix.split("/");
  const bits = isIP(network) === 4 ? 32 : 128;
  const hostBits = BigInt(bits - Number(length));
  const first = (toNumber(network) >> hostBits) << hostBits;
  const last = first + (1n << hostBits) - 1n;
  const middle = first + (last - first + 1n) / 2n;
  return [...new Set([first, middle, last])].map((value) => toAddress(value, bits));
}

/** Each address of the registries' blocks that `allows` lets through, named by its block. */
function unrefused(allows: (address: string) => boolean): string[] {
  return [...registries.ipv4.blocks, ...registries.ipv6.blocks].flatMap(({ prefix, name }) =>
    samples(prefix)
      .filter((address) => allows(address))
      .map((address) => `${prefix} ${name}: ${address}`),
  );
}

/** Whether WEBHOOK_SUBSCRIBERS takes an https URL naming this address. */
function takenAtPackaging(address: string): boolean {
  const host = isIP(address) === 6 ? `[${address}]` : address;
  try {
    readSubscribers({ WEBHOOK_SUBSCRIBERS: `site=https://${host}/hook` });
    return true;
  } catch (error) {
    if (String(error).includes("names an address that is not public")) return false;
    throw error;
  }
}

const checks: [string, (address: string) => boolean][] = [
  ["the delivery function", (address) => isAllowedAddress(address)],
  ["WEBHOOK_SUBSCRIBERS at packaging", takenAtPackaging],
];

describe("the registries' copy", () => {
  it("holds both registries as last updated, each block once", () => {
    expect([registries.ipv4.lastUpdated, registries.ipv6.lastUpdated]).toEqual([
      "2025-10-09",
      "2025-10-09",
    ]);
    expect([registries.ipv4.blocks.length, registries.ipv6.blocks.length]).toEqual([26, 25]);
    const prefixes = [...registries.ipv4.blocks, ...registries.ipv6.blocks].map((b) => b.prefix);
    expect(new Set(prefixes).size).toBe(prefixes.length);
  });

  it("is walked at each block's first, middle and last address", () => {
    expect(samples("198.18.0.0/15")).toEqual(["198.18.0.0", "198.19.0.0", "198.19.255.255"]);
    expect(samples("2001:1::3/128")).toEqual(["2001:1:0:0:0:0:0:3"]);
    expect(samples("fc00::/7")).toEqual([
      "fc00:0:0:0:0:0:0:0",
      "fd00:0:0:0:0:0:0:0",
      "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
    ]);
  });
});

describe.each(checks)("%s", (_, allows) => {
  it("refuses every block of both registries", () => {
    expect(unrefused(allows)).toEqual([]);
  });

  it.each([
    ["2002:a00:1::1", "6to4 of 10.0.0.1"],
    ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "Teredo"],
    ["::a00:1", "IPv4-compatible 10.0.0.1"],
    ["::ffff:a00:1", "IPv4-mapped 10.0.0.1"],
    ["::ffff:808:808", "IPv4-mapped 8.8.8.8"],
    ["64:ff9b::a00:1", "NAT64 of 10.0.0.1"],
    ["64:ff9b:1::808:808", "local-use NAT64"],
    ["ff02::1", "IPv6 multicast"],
    ["fec0::1", "site local"],
    ["224.0.0.1", "IPv4 multicast"],
    ["239.255.255.255", "IPv4 multicast"],
    ["255.255.255.255", "limited broadcast"],
    ["198.18.0.1", "benchmarking"],
    ["169.254.169.254", "the instance metadata service"],
  ])("refuses %s (%s)", (address) => {
    expect(allows(address)).toBe(false);
  });

  // Public addresses next to the refused blocks' edges.
  const PUBLIC = `1.1.1.1 8.8.8.8 9.255.255.255 11.0.0.0 100.63.255.255 100.128.0.0 172.15.255.255
    172.32.0.0 192.0.1.1 192.0.3.1 198.17.255.255 198.20.0.0 223.255.255.255 2606:4700:4700::1111
    2001:4860:4860::8888 2001:200::1 2003::1`;
  it.each(PUBLIC.split(/\s+/))("takes %s, a public address", (address) => {
    expect(allows(address)).toBe(true);
  });
});

describe("isAllowedAddress", () => {
  it("takes loopback only when allowed, and nothing that is not an address", () => {
    expect(isAllowedAddress("127.0.0.1", true)).toBe(true);
    expect(isAllowedAddress("::1", true)).toBe(true);
    expect(isAllowedAddress("127.0.0.1")).toBe(false);
    expect(isAllowedAddress("10.0.0.1", true)).toBe(false);
    for (const text of ["hooks.example.com", "", "not an address"]) {
      expect(isAllowedAddress(text), text).toBe(false);
    }
    // A resolver may answer a link-local address with its zone; a URL cannot name one.
    expect(isAllowedAddress("fe80::1%eth0")).toBe(false);
  });
});

describe("the walk", () => {
  const without = (blocks: typeof REFUSED_IPV4, network: string) =>
    blocks.filter(([first]) => first !== network);

  it.each<[string, AddressCheck, string[]]>([
    [
      "198.18.0.0/15",
      addressCheck(without(REFUSED_IPV4, "198.18.0.0"), REFUSED_IPV6),
      ["198.18.0.0", "198.19.0.0", "198.19.255.255"],
    ],
    [
      "2002::/16",
      addressCheck(REFUSED_IPV4, without(REFUSED_IPV6, "2002::")),
      ["2002:0:0:0:0:0:0:0", "2002:8000:0:0:0:0:0:0", "2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff"],
    ],
  ])("names the block a check missed: %s left out", (prefix, check, addresses) => {
    const name = [...registries.ipv4.blocks, ...registries.ipv6.blocks].find(
      (block) => block.prefix === prefix,
    )?.name;
    expect(unrefused((address) => check(address))).toEqual(
      addresses.map((address) => `${prefix} ${name}: ${address}`),
    );
  });
});

describe("the refused blocks", () => {
  it("are written in lib/events/address.ts alone, not again in config/", () => {
    const config = readdirSync(`${root}config`).filter((file) => file.endsWith(".cjs"));
    const repeated = config.flatMap((file) => {
      const text = readFileSync(`${root}config/${file}`, "utf8");
      return [...REFUSED_IPV4, ...REFUSED_IPV6]
        .filter(([network]) => text.includes(`"${network}"`))
        .map(([network, prefix]) => `config/${file}: ${network}/${prefix}`);
    });
    expect(repeated).toEqual([]);
  });
});
