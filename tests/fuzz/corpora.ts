// Fuzz inputs: hand-picked values the properties draw from beside generated ones.

/** The ids of the posts every case starts from. */
export const KNOWN_IDS = [1, 2, 3, 5, Number.MAX_SAFE_INTEGER];

/** Characters that break naive text handling: controls, NUL, lone surrogates, astral, bidi, combining. */
export const EDGE_CHARACTERS = [
  // Controls, and the characters JSON or a shell quotes.
  ...["\u0000", "\u0001", "\u001f", "\u007f", "\u0085", "\t", "\n", "\r", '"', "\\", "/", "'"],
  // Combining, zero-width, bidi and line separators, byte-order marks, non-characters.
  ...["\u00e9", "e\u0301", "\u0301", "\u0336\u0336\u0336", "\u200b", "\u200d", "\u200e"],
  ...["\u200f", "\u202e", "\u2066", "\u2028", "\u2029", "\ufeff", "\ufffd", "\ufffe", "\uffff"],
  // Lone and reversed surrogates.
  ...["\ud800", "\udbff", "\udc00", "\udfff", "\udfff\ud800"],
  // Astral: emoji, a ZWJ sequence, a flag, the last code point, a musical symbol.
  ...["\u{1f600}", "\u{1f469}\u200d\u{1f4bb}", "\u{1f1fa}\u{1f1f8}", "\u{10ffff}", "\u{1d11e}"],
  // Right-to-left letters, digits of other scripts.
  ...["\u0628", "\u05d0", "\uff19", "\u0663"],
  // Text that means something to an encoder, a template, DynamoDB's expressions or SQL.
  ...["%00", "${title}", ":updated_at", "#title", "<script>", "' OR '1'='1"],
];

/** Each text repeated as often as the limit allows, and once more. */
const aroundLimit = (texts: string[], limit: number, size: (text: string) => number) =>
  texts.flatMap((text) => [text.repeat(limit / size(text)), text.repeat(limit / size(text) + 1)]);

/** Titles around the 100-code-point limit, in one- and two-unit characters. */
export const TITLE_BOUNDARY = aroundLimit(
  ["x", "\u{1f600}", "e\u0301", "\u0628", "\u0000"],
  100,
  (text) => [...text].length,
);

/** Contents around the 300,000-byte (UTF-8) bound, in 1-, 2-, 3- and 4-byte characters. */
export const CONTENT_BOUNDARY = aroundLimit(
  ["x", "\u00e9", "\u20ac", "\u{1f600}"],
  300_000,
  (text) => Buffer.byteLength(text),
);

/** Timestamps the rulings accept (TZ=UTC), one per accepted form, with the instant each names. */
export const VALID_TIMESTAMPS: Readonly<Record<string, string>> = {
  "2026-04-03 15:06:07": "2026-03-04T15:06:07.000Z",
  "0001-01-01 00:00:00": "0001-01-01T00:00:00.000Z",
  "9998-31-12 23:59:59": "9998-12-31T23:59:59.000Z",
  "2026-03-04T15:06Z": "2026-03-04T15:06:00.000Z",
  "2026-03-04T15:06:07+05:30": "2026-03-04T09:36:07.000Z",
  "2026-03-04T15:06:07.5-08:00": "2026-03-04T23:06:07.500Z",
  "2026-03-04T15:06:07.123456789+01:00": "2026-03-04T14:06:07.123Z",
};

/** Values the rulings reject for `created_at` / `updated_at` (400); the unit tests pin the rest. */
export const INVALID_TIMESTAMPS: readonly unknown[] = [
  ...["", "now", "2026-01-13 00:00:00", "2025-29-02 00:00:00", "2026-04-03 24:00:00"],
  ...["2026-04-03T15:06:07", "2026-03-04T15:06:07+0530", "9999-31-12 23:59:59"],
  ...["0001-01-01T00:30:00+01:00", "2026-03-04T15:06:07,5Z", "2026-03-04t15:06:07z"],
  ...[1_700_000_000_000, true, [], {}],
];

/** Bodies just under and over the 1 MiB request limit. */
export const HUGE_BODIES = [
  JSON.stringify({ title: "t", content: "x".repeat(1_048_576 - 27) }),
  JSON.stringify({ title: "t", content: "x".repeat(1_048_577) }),
  JSON.stringify({ title: "t", content: "\u0000".repeat(200_000) }),
  `"${"x".repeat(1_100_000)}"`,
];

/** Base64 bodies that do not decode to UTF-8 text (overlong forms, CESU-8 surrogates, stray bytes). */
export const INVALID_UTF8_BASE64 = [
  ...["ff", "c0af", "e080af", "eda080", "f4908080", "80"].map((hex) => Buffer.from(hex, "hex")),
  [...Buffer.from('{"title":"'), 0xfe, ...Buffer.from('","content":"c"}')],
  [...Buffer.from('{"title":"t","content":"'), 0xc3, ...Buffer.from('"}')],
].map((bytes) => Buffer.from(bytes).toString("base64"));

/** Header sets a client or proxy might send, none of which may change the outcome. */
export const HEADER_SETS: readonly Record<string, string>[] = [
  {},
  { "content-type": "text/plain" },
  { "content-type": "application/json; charset=utf-16" },
  { "content-type": "" },
  { "content-type": "application/x-www-form-urlencoded" },
  { "content-type": "multipart/form-data; boundary=x" },
  { "Content-Type": "APPLICATION/JSON" },
  { "content-encoding": "gzip" },
  { "content-length": "-1" },
  { "x-http-method-override": "DELETE" },
  { accept: "text/html" },
];

/** Query strings the service must ignore. */
export const QUERY_STRINGS = ["", "id=0", "post_pk=0", "limit=-1", "%ff", "a=1&a=2", "title=x"];

/** Path ids that are not canonical positive decimal integers within 2^53 - 1. */
export const NONCANONICAL_POST_IDS = [
  // Zero, signs, fractions, exponents, leading zeros, spaces and controls around the digits.
  ...["0", "00", "-0", "+0", "0.0", "0e0", "-1", "+1", "1.0", "1.5", "1e3", "1E3", "01", "007"],
  ...[" 1", "1 ", "1\n", "1\u0000"],
  // Digits of other scripts, other bases, separators, URL-encoded digits.
  ...["\uff19", "\uff11\uff12", "\u0663", "\u0967", "0x1F", "0b1", "0o7", "1_000", "1,000"],
  ...["", " ", "%31", "1/2"],
  // Words and JSON that a loose parser reads as a number.
  ...["NaN", "Infinity", "-Infinity", "true", "null", "undefined", "[1]", "{}"],
  // Past 2^53 - 1.
  ...["9007199254740992", "9007199254740993", "18446744073709551616"],
  ...["1".repeat(17), "9".repeat(400)],
];

/** Idempotency-Key values that are not 1-255 visible ASCII characters (400). */
export const INVALID_IDEMPOTENCY_KEYS = [
  ...["", " ", "a b", " key", "key\t", "key\n", "\u0000", "\u007f", "cl\u00e9"],
  ...["\u043a\u043b\u044e\u0447", "\u{1f511}", "\ud800", "x".repeat(256)],
];
