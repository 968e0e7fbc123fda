// Unit: which addresses a webhook may go to, against a copy of IANA's Special-Purpose Address
// Registries: the send-time predicate and WEBHOOK_SUBSCRIBERS' packaging check refuse alike.
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

type Registry = { lastUpdated: string; blocks: { prefix: string; name: string }[] };
const registries = JSON.parse(
  readFileSync(`${root}tests/helpers/fixtures/iana-special-purpose.json`, "utf8"),
) as { ipv4: Registry; ipv6: Registry };
const blocks = [...registries.ipv4.blocks, ...registries.ipv6.blocks];

/** An address as a number: 32 bits for IPv4, 128 for IPv6 (written without embedded IPv4). */
function toNumber(address: string): bigint {
  if (isIP(address) === 4) return address.split(".").reduce((n, x) => (n << 8n) | BigInt(x), 0n);
  const [head = [], tail] = address.split("::").map((text) => (text ? text.split(":") : []));
  const all = tail ? [...head, ...Array(8 - head.length - tail.length).fill("0"), ...tail] : head;
  return all.reduce((n, group) => (n << 16n) | BigInt(`0x${group}`), 0n);
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
  return blocks.flatMap(({ prefix, name }) =>
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
    const { ipv4, ipv6 } = registries;
    expect([ipv4.lastUpdated, ipv6.lastUpdated]).toEqual(["2025-10-09", "2025-10-09"]);
    expect([ipv4.blocks.length, ipv6.blocks.length]).toEqual([26, 25]);
    expect(new Set(blocks.map((block) => block.prefix)).size).toBe(blocks.length);
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

  // 6to4, Teredo, IPv4-compatible and -mapped (of private and public), NAT64 and local-use
  // NAT64, IPv6 multicast, site local, IPv4 multicast, broadcast, benchmarking, instance metadata.
  const SPECIAL = `2002:a00:1::1 2001:0:4136:e378:8000:63bf:3fff:fdd2 ::a00:1 ::ffff:a00:1
    ::ffff:808:808 64:ff9b::a00:1 64:ff9b:1::808:808 ff02::1 fec0::1 224.0.0.1 239.255.255.255
    255.255.255.255 198.18.0.1 169.254.169.254`;
  it.each(SPECIAL.split(/\s+/))("refuses %s, an address of a special use", (address) => {
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
  const without = (refused: typeof REFUSED_IPV4, network: string) =>
    refused.filter(([first]) => first !== network);

  it.each<[string, AddressCheck]>([
    ["198.18.0.0/15", addressCheck(without(REFUSED_IPV4, "198.18.0.0"), REFUSED_IPV6)],
    ["2002::/16", addressCheck(REFUSED_IPV4, without(REFUSED_IPV6, "2002::"))],
  ])("names each sample of the block a check missed: %s left out", (prefix, check) => {
    const name = blocks.find((block) => block.prefix === prefix)?.name;
    expect(unrefused((address) => check(address))).toEqual(
      samples(prefix).map((address) => `${prefix} ${name}: ${address}`),
    );
    expect(samples(prefix)).toHaveLength(3);
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
