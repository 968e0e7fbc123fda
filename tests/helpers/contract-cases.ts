// Test helper: values around every edge of the request rules, and the check that the contract
// (openapi.yaml) and the service agree on them but for the rules its descriptions name.
import * as fc from "fast-check";

export type Check = (value: unknown) => boolean;

/** A rule of the service's as a check: whether it takes the value without throwing. */
export const accepts = (rule: (value: never) => unknown) => (value: unknown) => {
  try {
    rule(value as never);
    return true;
  } catch {
    return false;
  }
};

// Each rule the contract's descriptions name as one its schemas cannot say.
const isLeap = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
/** 29 February of a year that has none, in the service format or ISO. */
function impossibleLeapDay(text: string) {
  const leapDay = /^(\d{4})-29-02 /.exec(text) ?? /^(\d{4})-02-29T/.exec(text);
  return leapDay !== null && !isLeap(Number(leapDay[1]));
}
/** An instant whose year, in UTC, is outside 0001-9998. */
function yearOutOfRange(text: string) {
  const year = new Date(text).getUTCFullYear();
  return year < 1 || year > 9998;
}
/** Text with a lone UTF-16 surrogate. */
const illFormed = (value: unknown) => typeof value === "string" && !value.isWellFormed();
/** Content within 300,000 characters but over 300,000 bytes of UTF-8. */
const overByteLimit = (value: unknown) =>
  typeof value === "string" && Buffer.byteLength(value) > 300_000;

/** How contract and service disagree on `value`; undefined if they agree or `described` allows. */
export function disagreement(
  schema: Check,
  service: Check,
  value: unknown,
  described: (value: unknown) => boolean = () => false,
): string | undefined {
  const [contract, actual] = [schema(value), service(value)];
  if (contract === actual || (contract && described(value))) return undefined;
  const says = (yes: boolean) => (yes ? "valid" : "invalid");
  return `${JSON.stringify(value)}: the contract says ${says(contract)}, the service ${says(actual)}`;
}

/** The timestamp rules the contract's descriptions name. */
export const timestampRules = (value: unknown) =>
  typeof value === "string" && (impossibleLeapDay(value) || yearOutOfRange(value));

// Candidates around every edge the rules have, valid and not.
const digits = (width: number, max: number) =>
  fc.integer({ min: 0, max }).map((n) => String(n).padStart(width, "0"));
const year = fc.oneof(
  fc.constantFrom("0000", "0001", "0099", "1900", "2000", "2023", "2024", "2100", "9998", "9999"),
  digits(4, 9999),
);
const fraction = fc.oneof(
  fc.constant(""),
  fc.integer({ min: 0, max: 10 }).map((n) => `.${"1234567890".slice(0, n)}`),
);
const offset = fc.oneof(
  fc.constantFrom("Z", "z", "", "+0100", "+1:00"),
  fc
    .tuple(fc.constantFrom("+", "-"), digits(2, 25), digits(2, 61))
    .map(([s, h, m]) => s + h + ":" + m),
);
const serviceForm = fc
  .tuple(year, digits(2, 32), digits(2, 13), digits(2, 25), digits(2, 61), digits(2, 61))
  .map(([y, d, mo, h, mi, s]) => `${y}-${d}-${mo} ${h}:${mi}:${s}`);
const seconds = fc.oneof(
  fc.constant(""),
  fc.tuple(digits(2, 61), fraction).map(([s, f]) => `:${s}${f}`),
);
const isoForm = fc
  .tuple(year, digits(2, 13), digits(2, 32), fc.constantFrom("T", "T", "T", "t", " "))
  .chain(([y, mo, d, sep]) =>
    fc
      .tuple(digits(2, 25), digits(2, 61), seconds, offset)
      .map(([h, mi, s, z]) => `${y}-${mo}-${d}${sep}${h}:${mi}${s}${z}`),
  );
export const timestamp = fc.oneof(
  serviceForm,
  isoForm,
  fc.constantFrom(null, 0, true, "", "now", [], {}),
);

/** The body rules the contract's descriptions name. */
export const bodyRules = (body: unknown) =>
  Object.values(body as Record<string, unknown>).some(
    (value) => illFormed(value) || overByteLimit(value) || timestampRules(value),
  );
// Mostly short text; the long edges (300,000 characters or bytes) now and then.
const edges = fc.constantFrom(...["x", "😀"].flatMap((c) => [c.repeat(100), c.repeat(101)]));
const long = fc.constantFrom(
  ...[300_000, 300_001].map((n) => "a".repeat(n)),
  ...[150_000, 150_001, 200_000].map((n) => "é".repeat(n)),
);
const text = fc.oneof(
  { arbitrary: fc.string({ maxLength: 110 }), weight: 8 },
  { arbitrary: fc.string({ unit: "grapheme", maxLength: 105 }), weight: 4 },
  { arbitrary: edges, weight: 3 },
  { arbitrary: fc.constantFrom("\ud800", "ok\udfff"), weight: 1 },
  { arbitrary: long, weight: 1 },
);
const anything = fc.oneof(
  text,
  timestamp,
  fc.constantFrom(0, 1, -1, 1.5, 2 ** 53 - 1, 2 ** 53, 1e3, null, false, [1], { a: 1 }),
);
const anyFields = fc.dictionary(
  fc.constantFrom("title", "content", "id", "created_at", "updated_at", "author"),
  fc.oneof(text, anything),
  { maxKeys: 6 },
);
const plain = [fc.string({ maxLength: 100 }), fc.string({ maxLength: 200 })] as const;
// Half start from a title and content of plain text, so valid bodies are common too.
export const body = fc.oneof(
  anyFields,
  fc.tuple(...plain, anyFields).map(([title, content, more]) => ({ title, content, ...more })),
  fc.tuple(...plain, fc.nat(3), anything).map(([title, content, pick, value]) => ({
    title,
    content,
    [["id", "created_at", "updated_at", "title"][pick]!]: value,
  })),
);

/** Bodies on each field's edges, one field off the plain `{title, content}` at a time. */
export const edgeBodies: Record<string, unknown>[] = [
  ...["x".repeat(100), "x".repeat(101), "😀".repeat(100), "😀".repeat(101), "\ud800", 7].map(
    (title) => ({ title, content: "c" }),
  ),
  ...["a".repeat(300_000), "a".repeat(300_001), "é".repeat(150_000), "é".repeat(150_001)].map(
    (content) => ({ title: "t", content }),
  ),
  ...[0, -1, 1.5, 2 ** 53, "9", null].map((id) => ({ title: "t", content: "c", id })),
  ...[
    ...["2000-29-02 12:00:00", "2001-29-02 12:00:00", "2000-31-04 00:00:00"],
    ...["2000-30-04 00:00:00", "2000-01-01T00:00Z", "2000-01-01t00:00:00z"],
    ...["2000-01-01T23:59:60Z", "2000-01-01T00:00:00.123456789+23:59", null, ""],
  ].map((created_at) => ({ title: "t", content: "c", created_at })),
  {},
  { title: "t" },
  { content: "c" },
  { title: "t", content: "c", author: "a" },
];
