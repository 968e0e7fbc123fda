// Fuzz inputs, field values: fast-check arbitraries for the values a payload's fields may hold,
// hostile or valid, and the payload objects built from them.
import fc from "fast-check";
import { dayFirstUtc } from "../helpers/post-shape.js";
import {
  CONTENT_BOUNDARY,
  EDGE_CHARACTERS,
  INVALID_TIMESTAMPS,
  TITLE_BOUNDARY,
  VALID_TIMESTAMPS,
} from "./corpora.js";

const oneUnit = (unit: "binary" | "grapheme" | "grapheme-ascii") =>
  fc.string({ unit, minLength: 1, maxLength: 1 });

/** One hostile character (sometimes a short sequence) from any part of Unicode, surrogates included. */
export const hostileCharacter: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...EDGE_CHARACTERS) },
  { weight: 3, arbitrary: oneUnit("binary") },
  { weight: 2, arbitrary: oneUnit("grapheme") },
  { weight: 4, arbitrary: oneUnit("grapheme-ascii") },
);

/** A string of hostile characters; may hold lone surrogates. */
export const hostileString = (maxLength = 30): fc.Arbitrary<string> =>
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
export const wrongTypeValue: fc.Arbitrary<unknown> = fc.oneof(
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
export const titleValue: fc.Arbitrary<unknown> = fc.oneof(
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
export const contentValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 12, arbitrary: wellFormedString(200) },
  { weight: 4, arbitrary: hostileString(200) },
  { weight: 1, arbitrary: fc.constantFrom(...CONTENT_BOUNDARY) },
  { weight: 3, arbitrary: wrongTypeValue },
);

/** Ids a client may send on create: in range, out of range, fractional, strings, wrong types. */
export const idValue = (knownIds: readonly number[]): fc.Arbitrary<unknown> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.integer({ min: 1_000, max: 1_000_000_000 }) },
    { weight: 2, arbitrary: fc.constantFrom(...knownIds) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(0, -0, -1, 1.5, 2 ** 53, 2 ** 53 + 2, 1e21, "5", "1", "", true),
    },
    { weight: 1, arbitrary: wrongTypeValue },
  );

const storableDate = fc.date({
  min: new Date("1000-01-01T00:00:00Z"),
  max: new Date("9998-12-31T23:59:59Z"),
  noInvalidDate: true,
});

/** Timestamp values: known-good, known-bad, generated ones in the service's two shapes, hostile. */
export const timestampValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, ...Object.keys(VALID_TIMESTAMPS)),
  fc.constantFrom(...INVALID_TIMESTAMPS),
  storableDate.map((date) => date.toISOString()),
  storableDate.map(dayFirstUtc),
  hostileString(25),
  wrongTypeValue,
);

/** Keys that are not post fields, some of them lookalikes or prototype names. */
export const unknownKey: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    ...["__proto__", "constructor", "toString", "hasOwnProperty"],
    ...["Title", "TITLE", " title", "content ", "tit\u0000le", "content\u200b", ""],
    ...["ID", "createdAt", "last_id", "post_pk", "author"],
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

/** A title create and update accept: well-formed text of at most 100 code points. */
const validTitle = wellFormedString(40).map((title) => [...title].slice(0, 100).join(""));

/** A payload create must accept: well-formed strings within the limits, valid timestamps, maybe an id. */
export const validCreatePayload = (
  knownIds: readonly number[],
): fc.Arbitrary<Record<string, unknown>> =>
  fc.record(
    {
      title: validTitle,
      content: fc.oneof(
        { weight: 12, arbitrary: wellFormedString(200) },
        {
          weight: 1,
          arbitrary: fc.constantFrom(
            ...CONTENT_BOUNDARY.filter((c) => Buffer.byteLength(c) <= 300_000),
          ),
        },
      ),
      id: fc.oneof(fc.integer({ min: 1_000, max: 2 ** 40 }), fc.constantFrom(...knownIds)),
      created_at: fc.constantFrom(null, ...Object.keys(VALID_TIMESTAMPS)),
      updated_at: fc.constantFrom(null, ...Object.keys(VALID_TIMESTAMPS)),
    },
    { requiredKeys: ["title", "content"] },
  );

/** A payload update must accept: any of title and content, and read-only keys it drops. */
export const validUpdatePayload: fc.Arbitrary<Record<string, unknown>> = fc.record(
  {
    title: validTitle,
    content: wellFormedString(200),
    id: fc.jsonValue({ maxDepth: 1 }),
    created_at: fc.jsonValue({ maxDepth: 1 }),
    updated_at: fc.jsonValue({ maxDepth: 1 }),
  },
  { requiredKeys: [] },
);

/**
 * A valid payload for `kind`, half the time with one field changed to a hostile value, added,
 * or removed: most such requests get past validation and reach storage, the rest fail on
 * exactly one rule.
 */
export const nearValidPayload = (
  kind: "create" | "update",
  knownIds: readonly number[],
): fc.Arbitrary<Record<string, unknown>> => {
  const change = fc.oneof(
    fc.tuple(fc.constant("id"), idValue(knownIds)),
    fc.tuple(fc.constant("title"), titleValue),
    fc.tuple(fc.constant("content"), contentValue),
    fc.tuple(fc.constantFrom("created_at", "updated_at"), timestampValue),
    fc.tuple(unknownKey, fc.jsonValue({ maxDepth: 1 })),
    // Removed: a missing field.
    fc.tuple(fc.constantFrom("title", "content"), fc.constant(undefined)),
  );
  const valid = kind === "create" ? validCreatePayload(knownIds) : validUpdatePayload;
  return fc.tuple(valid, fc.option(change, { freq: 2 })).map(([body, changed]) => {
    if (!changed) return body;
    const [key, value] = changed;
    const rest = Object.entries(body).filter(([name]) => name !== key);
    // Built with Object.fromEntries so `__proto__` becomes an own key, as JSON.parse makes it.
    return Object.fromEntries(value === undefined ? rest : [...rest, [key, value]]);
  });
};
