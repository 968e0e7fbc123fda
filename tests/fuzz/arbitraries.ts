// Fuzz inputs: fast-check arbitraries for hostile API Gateway requests to the five post handlers,
// built from the fixed corpora (corpora.ts) and generated values.
import fc from "fast-check";
import { dayFirstUtc } from "../helpers/post-shape.js";
import {
  CONTENT_BOUNDARY,
  EDGE_CHARACTERS,
  HEADER_SETS,
  HUGE_BODIES,
  INVALID_TIMESTAMPS,
  INVALID_UTF8_BASE64,
  NONCANONICAL_POST_IDS,
  QUERY_STRINGS,
  TITLE_BOUNDARY,
  VALID_TIMESTAMPS,
} from "./corpora.js";

/** The five handlers, by the action they serve. */
export type Kind = "list" | "get" | "create" | "update" | "delete";

/** One generated request: what API Gateway could hand a handler. */
export interface HostileRequest {
  /** The raw `post_pk` path parameter; undefined sends no path parameters at all. */
  postId: string | undefined;
  /** The raw body as the event carries it (already base64 when `isBase64Encoded`). */
  body: string | undefined;
  isBase64Encoded: boolean;
  /** Extra headers; they override the default `content-type: application/json`. */
  headers: Record<string, string>;
  /** Removes the `content-type` header altogether. */
  dropContentType: boolean;
  /** Raw query string; the service must ignore it. */
  query: string;
}

const oneUnit = (unit: "binary" | "grapheme" | "grapheme-ascii") =>
  fc.string({ unit, minLength: 1, maxLength: 1 });

/** One hostile character (sometimes a short sequence) from any part of Unicode, surrogates included. */
const hostileCharacter: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...EDGE_CHARACTERS) },
  { weight: 3, arbitrary: oneUnit("binary") },
  { weight: 2, arbitrary: oneUnit("grapheme") },
  { weight: 4, arbitrary: oneUnit("grapheme-ascii") },
);

/** A string of hostile characters; may hold lone surrogates. */
const hostileString = (maxLength = 30): fc.Arbitrary<string> =>
  fc.string({ unit: hostileCharacter, maxLength });

/** A hostile string with every lone surrogate replaced, so it is valid Unicode text. */
const wellFormedString = (maxLength = 30): fc.Arbitrary<string> =>
  hostileString(maxLength).map((text) => text.toWellFormed());

/** The number of Unicode code points in a string (what the title limit counts). */
export const codePoints = (text: string): number => {
  let count = 0;
  for (const _ of text) count++;
  return count;
};

/** A JSON value `depth` levels deep, alternating arrays and objects. */
export function nested(depth: number): unknown {
  let value: unknown = "bottom";
  for (let level = 0; level < depth; level++) value = level % 2 ? [value] : { a: value };
  return value;
}

/** A value of the wrong type for any post field: null, booleans, numbers, arrays, objects, deep nesting. */
const wrongTypeValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -0, 1e308, 5e-324, -1, 1.5),
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }),
  fc.dictionary(hostileString(6), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
  fc.integer({ min: 1, max: 2_000 }).map(nested),
);

/** Title values: mostly strings (some over the limit), sometimes the wrong type. */
const titleValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: wellFormedString(40) },
  { weight: 2, arbitrary: hostileString(40) },
  { weight: 2, arbitrary: fc.constantFrom(...TITLE_BOUNDARY) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.integer({ min: 95, max: 105 }), hostileCharacter)
      .map(([times, text]) => text.repeat(times)),
  },
  { weight: 2, arbitrary: wrongTypeValue },
);

/** Content values: mostly short strings, rarely the size bound, sometimes the wrong type. */
const contentValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 12, arbitrary: wellFormedString(200) },
  { weight: 4, arbitrary: hostileString(200) },
  { weight: 1, arbitrary: fc.constantFrom(...CONTENT_BOUNDARY) },
  { weight: 3, arbitrary: wrongTypeValue },
);

/** Ids a client may send on create: in range, out of range, fractional, strings, wrong types. */
const idValue = (knownIds: readonly number[]): fc.Arbitrary<unknown> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.integer({ min: 1_000, max: 1_000_000_000 }) },
    { weight: 2, arbitrary: fc.constantFrom(...knownIds) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(0, -0, -1, 1.5, 2 ** 53, 2 ** 53 + 2, 1e21, "5", "1", "", true),
    },
    { weight: 1, arbitrary: wrongTypeValue },
  );

/** A date shown in the service format, read back in UTC. */
const serviceFormat = dayFirstUtc;

const storableDate = fc.date({
  min: new Date("1000-01-01T00:00:00Z"),
  max: new Date("9998-12-31T23:59:59Z"),
  noInvalidDate: true,
});

/** Timestamp values: known-good, known-bad, generated good ones in both formats, hostile strings. */
const timestampValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(...VALID_TIMESTAMPS),
  fc.constantFrom(...INVALID_TIMESTAMPS),
  storableDate.map((date) => date.toISOString()),
  storableDate.map(serviceFormat),
  hostileString(25),
  wrongTypeValue,
);

/** Keys that are not post fields, some of them lookalikes or prototype names. */
const unknownKey: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "__proto__",
    "constructor",
    "toString",
    "hasOwnProperty",
    "Title",
    "TITLE",
    " title",
    "content ",
    "tit\u0000le",
    "content\u200b",
    "",
    "ID",
    "createdAt",
    "last_id",
    "post_pk",
    "author",
  ),
  hostileString(8),
);

/** One payload entry, present with the given probability (percent). */
const entry = (key: string, value: fc.Arbitrary<unknown>, percent: number) =>
  fc.oneof(
    { weight: percent, arbitrary: value.map((v): [string, unknown][] => [[key, v]]) },
    { weight: 100 - percent, arbitrary: fc.constant<[string, unknown][]>([]) },
  );

/**
 * A payload object: the five post fields each maybe present with a generated value, plus now and
 * then unknown keys. Built with Object.fromEntries so `__proto__` becomes an own key, as JSON.parse
 * would make it.
 */
export const payload = (knownIds: readonly number[]): fc.Arbitrary<Record<string, unknown>> =>
  fc
    .tuple(
      entry("id", idValue(knownIds), 20),
      entry("title", titleValue, 85),
      entry("content", contentValue, 85),
      entry("created_at", timestampValue, 15),
      entry("updated_at", timestampValue, 15),
      fc.oneof(
        { weight: 9, arbitrary: fc.constant<[string, unknown][]>([]) },
        {
          weight: 1,
          arbitrary: fc.array(fc.tuple(unknownKey, fc.jsonValue({ maxDepth: 1 })), {
            minLength: 1,
            maxLength: 2,
          }),
        },
      ),
      fc.boolean(),
    )
    .map(([id, title, content, createdAt, updatedAt, extra, extraFirst]) => {
      const known = [...id, ...title, ...content, ...createdAt, ...updatedAt];
      return Object.fromEntries(extraFirst ? [...extra, ...known] : [...known, ...extra]);
    });

/** Text that is not JSON, is JSON but not an object, or is almost JSON. */
const nonJsonText: fc.Arbitrary<string> = fc.oneof(
  hostileString(50),
  fc.constantFrom(
    "",
    " ",
    "\n",
    "null",
    "undefined",
    "NaN",
    "{",
    "}",
    "[]",
    "{}",
    '"{}"',
    "1",
    "true",
    "{'title': 't', 'content': 'c'}",
    '{"title":"t","content":"c"',
    '{"title":"t","content":"c"}}',
    '{"title":"t","content":"c"} x',
    '{"title":"t","content":"c",}',
    '\ufeff{"title":"t","content":"c"}',
    "title=t&content=c",
    "<post><title>t</title></post>",
    '{"title":"\\ud800","content":"c"}',
    '{"title":"\\u0000","content":"\\u0000"}',
    '{"title":"t","content":"c","title":"duplicate"}',
    '{"__proto__":{"title":"t"},"title":"t","content":"c"}',
    '{"title":"t","content":"c","__proto__":null}',
    '{"title":"t","content":"c","id":null}',
  ),
  fc
    .tuple(
      fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v) ?? ""),
      fc.nat(),
    )
    .map(([text, cut]) => text.slice(0, text.length ? cut % text.length : 0)),
);

/** Create payloads whose id is written as a JSON number literal in an unusual form. */
const numberLiteralText: fc.Arbitrary<string> = fc
  .constantFrom(
    "1.0",
    "1e3",
    "1E0",
    "10e-1",
    "-0",
    "0.0",
    "9007199254740991",
    "9007199254740992",
    "9007199254740993",
    "1e400",
    "-1",
    "0x10",
    "01",
    ".5",
    "1.",
  )
  .map((literal) => `{"id": ${literal}, "title": "t", "content": "c"}`);

/** Deeply nested JSON text (up to 400,000 levels), in a field or as the whole body. */
const deepNestingText: fc.Arbitrary<string> = fc
  .tuple(
    fc.integer({ min: 1, max: 400_000 }),
    fc.constantFrom("title", "content", "id", "created_at", "other", ""),
    fc.constantFrom(["[", "]"], ['{"a":', "}"]),
  )
  .map(([depth, field, [open, close]]) => {
    const deep = `${open!.repeat(depth)}1${close!.repeat(depth)}`;
    return field ? `{"title":"t","content":"c","${field}":${deep}}` : deep;
  });

/** A request body's text: mostly payload objects, also other JSON, non-JSON, deep and huge text. */
const bodyText = (knownIds: readonly number[]): fc.Arbitrary<string | undefined> =>
  fc.oneof(
    { weight: 20, arbitrary: payload(knownIds).map((p) => JSON.stringify(p)) },
    { weight: 1, arbitrary: payload(knownIds).map((p) => JSON.stringify(p, null, "\t")) },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) },
    { weight: 3, arbitrary: nonJsonText },
    { weight: 1, arbitrary: numberLiteralText },
    { weight: 1, arbitrary: deepNestingText },
    { weight: 1, arbitrary: fc.constantFrom(...HUGE_BODIES) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );

type Encoded = Pick<HostileRequest, "body" | "isBase64Encoded">;

const base64 = (text: string) => Buffer.from(text, "utf8").toString("base64");

/** A body text as API Gateway may deliver it: plain, base64 (valid or not), or base64 of raw bytes. */
const encodedBody = (text: fc.Arbitrary<string | undefined>): fc.Arbitrary<Encoded> =>
  fc.oneof(
    { weight: 10, arbitrary: text.map((body) => ({ body, isBase64Encoded: false })) },
    {
      weight: 4,
      arbitrary: text.map((body) => ({
        body: body === undefined ? undefined : base64(body),
        isBase64Encoded: true,
      })),
    },
    {
      weight: 1,
      arbitrary: text.map((body) => ({
        // Line-wrapped base64, as MIME encoders write it.
        body: body === undefined ? undefined : base64(body).replace(/.{1,76}/g, "$&\n"),
        isBase64Encoded: true,
      })),
    },
    {
      weight: 1,
      arbitrary: fc
        .uint8Array({ maxLength: 48 })
        .map((bytes) => ({ body: Buffer.from(bytes).toString("base64"), isBase64Encoded: true })),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(...INVALID_UTF8_BASE64)
        .map((body) => ({ body, isBase64Encoded: true })),
    },
    {
      weight: 1,
      arbitrary: fc
        .oneof(
          hostileString(40),
          text.map((body) => body ?? ""),
        )
        .map((body) => ({ body, isBase64Encoded: true })),
    },
  );

/** Path ids of every shape: ids that exist, ids that do not, and non-canonical text. */
export const postId = (knownIds: readonly number[]): fc.Arbitrary<string | undefined> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...knownIds.map(String)) },
    { weight: 2, arbitrary: fc.integer({ min: 1, max: 1_000_000 }).map(String) },
    { weight: 1, arbitrary: fc.constant("9007199254740991") },
    { weight: 4, arbitrary: fc.constantFrom(...NONCANONICAL_POST_IDS) },
    { weight: 1, arbitrary: hostileString(12) },
    { weight: 1, arbitrary: fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 999 }))
        .map(([zeros, n]) => `${"0".repeat(zeros)}${n}`),
    },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );

/** Headers, content-type removal and query string for one request. */
export const requestFrame = fc.record({
  headers: fc.constantFrom(...HEADER_SETS),
  dropContentType: fc.boolean(),
  query: fc.constantFrom(...QUERY_STRINGS),
});

/** Bodies for routes that read none: absent, short text, payloads. */
const ignoredBody = (knownIds: readonly number[]) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: hostileString(20) },
    { weight: 1, arbitrary: payload(knownIds).map((p) => JSON.stringify(p)) },
  );

/** A hostile request for one handler: the parts that handler reads are the hostile ones. */
export const hostileRequest = (
  kind: Kind,
  knownIds: readonly number[],
): fc.Arbitrary<HostileRequest> => {
  const readsBody = kind === "create" || kind === "update";
  const readsId = kind === "get" || kind === "update" || kind === "delete";
  return fc
    .tuple(
      readsId ? postId(knownIds) : fc.constant(undefined),
      encodedBody(readsBody ? bodyText(knownIds) : ignoredBody(knownIds)),
      requestFrame,
    )
    .map(([id, encoded, frame]) => ({ postId: id, ...encoded, ...frame }));
};

/** Requests aimed at the id counter (item id 0) through every route. */
export const counterAttack: fc.Arbitrary<[Kind, HostileRequest]> = fc
  .tuple(
    fc.constantFrom<Kind>("list", "get", "create", "update", "delete"),
    fc.constantFrom("0", "00", "-0", "+0", "0.0", "0e0", "\uff10"),
    fc.constantFrom(
      '{"id": 0, "title": "t", "content": "c"}',
      '{"id": -0, "title": "t", "content": "c"}',
      '{"id": 0.0, "title": "t", "content": "c"}',
      '{"id": "0", "title": "t", "content": "c"}',
      '{"id": 0, "last_id": 0, "title": "t", "content": "c"}',
      '{"last_id": 0}',
      '{"id": 0}',
      '{"title": "counter"}',
    ),
    requestFrame,
  )
  .map(([kind, id, body, frame]) => [
    kind,
    {
      postId: kind === "list" || kind === "create" ? undefined : id,
      body,
      ...frame,
      isBase64Encoded: false,
    },
  ]);

// Wrapped, so that a null timestamp (a valid value) differs from an absent one.
const validTimestamp = fc.constantFrom(...VALID_TIMESTAMPS).map((value) => ({ value }));

/** A payload create must accept: well-formed strings within the limits, valid timestamps, maybe an id. */
export const validCreatePayload = (knownIds: readonly number[]) =>
  fc
    .tuple(
      wellFormedString(40).map((title) => [...title].slice(0, 100).join("")),
      fc.oneof(
        { weight: 12, arbitrary: wellFormedString(200) },
        {
          weight: 1,
          arbitrary: fc.constantFrom(
            ...CONTENT_BOUNDARY.filter((c) => Buffer.byteLength(c) <= 300_000),
          ),
        },
      ),
      fc.option(fc.oneof(fc.integer({ min: 1_000, max: 2 ** 40 }), fc.constantFrom(...knownIds)), {
        freq: 3,
      }),
      fc.option(validTimestamp, { freq: 3 }),
      fc.option(validTimestamp, { freq: 3 }),
    )
    .map(([title, content, id, createdAt, updatedAt]) => {
      const body: Record<string, unknown> = { title, content };
      if (id !== null) body.id = id;
      if (createdAt) body.created_at = createdAt.value;
      if (updatedAt) body.updated_at = updatedAt.value;
      return body;
    });

/** A payload update must accept: any subset of title/content, plus read-only keys it drops. */
export const validUpdatePayload = fc
  .tuple(
    fc.option(wellFormedString(40).map((title) => [...title].slice(0, 100).join(""))),
    fc.option(wellFormedString(200)),
    fc.option(
      fc.tuple(fc.constantFrom("id", "created_at", "updated_at"), fc.jsonValue({ maxDepth: 1 })),
    ),
  )
  .map(([title, content, readOnly]) => {
    const body: Record<string, unknown> = {};
    if (title !== null) body.title = title;
    if (content !== null) body.content = content;
    if (readOnly) body[readOnly[0]] = readOnly[1];
    return body;
  });
