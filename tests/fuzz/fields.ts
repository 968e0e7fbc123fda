// Fuzz inputs: hostile or valid values for a payload's fields, and payloads built from them.
import fc from "fast-check";
import { dayFirstUtc } from "../helpers/post-shape.js";
import {
  CONTENT_BOUNDARY,
  EDGE_CHARACTERS,
  INVALID_TIMESTAMPS,
  KNOWN_IDS,
  TITLE_BOUNDARY,
  VALID_TIMESTAMPS,
} from "./corpora.js";

const oneUnit = (unit: "binary" | "grapheme" | "grapheme-ascii") =>
  fc.string({ unit, minLength: 1, maxLength: 1 });

/** One hostile character (or short sequence) from anywhere in Unicode, surrogates included. */
export const hostileCharacter: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...EDGE_CHARACTERS) },
  { weight: 3, arbitrary: oneUnit("binary") },
  { weight: 2, arbitrary: oneUnit("grapheme") },
  { weight: 4, arbitrary: oneUnit("grapheme-ascii") },
);

export const hostileString = (maxLength = 30): fc.Arbitrary<string> =>
  fc.string({ unit: hostileCharacter, maxLength });

const wellFormedString = (maxLength = 30): fc.Arbitrary<string> =>
  hostileString(maxLength).map((text) => text.toWellFormed());

/** The number of Unicode code points in a string (what the title limit counts). */
export const codePoints = (text: string): number => [...text].length;

function nested(depth: number): unknown {
  let value: unknown = "bottom";
  for (let level = 0; level < depth; level++) value = level % 2 ? [value] : { a: value };
  return value;
}

/** A value of the wrong type for any post field, deep nesting included. */
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

export const contentValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 12, arbitrary: wellFormedString(200) },
  { weight: 4, arbitrary: hostileString(200) },
  { weight: 1, arbitrary: fc.constantFrom(...CONTENT_BOUNDARY) },
  { weight: 3, arbitrary: wrongTypeValue },
);

export const idValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 1_000, max: 1_000_000_000 }) },
  { weight: 2, arbitrary: fc.constantFrom(...KNOWN_IDS) },
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

export const timestampValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, ...Object.keys(VALID_TIMESTAMPS)),
  fc.constantFrom(...INVALID_TIMESTAMPS),
  storableDate.map((date) => date.toISOString()),
  storableDate.map(dayFirstUtc),
  hostileString(25),
  wrongTypeValue,
);

export const unknownKey: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    ...["__proto__", "constructor", "toString", "hasOwnProperty"],
    ...["Title", "TITLE", " title", "content ", "tit\u0000le", "content\u200b", ""],
    ...["ID", "createdAt", "last_id", "post_pk", "author"],
  ),
  hostileString(8),
);

const entry = (key: string, value: fc.Arbitrary<unknown>, percent: number) =>
  fc.oneof(
    { weight: percent, arbitrary: value.map((v): [string, unknown][] => [[key, v]]) },
    { weight: 100 - percent, arbitrary: fc.constant<[string, unknown][]>([]) },
  );

/** A payload: each post field maybe present, now and then unknown keys; built with
 * Object.fromEntries so `__proto__` is an own key, as JSON.parse makes it. */
export const payload = (): fc.Arbitrary<Record<string, unknown>> =>
  fc
    .tuple(
      entry("id", idValue, 20),
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

const validTitle = wellFormedString(40).map((title) => [...title].slice(0, 100).join(""));

/** Payloads create must accept, and update must accept (read-only keys dropped). */
export const validCreatePayload = () =>
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
      id: fc.oneof(fc.integer({ min: 1_000, max: 2 ** 40 }), fc.constantFrom(...KNOWN_IDS)),
      created_at: fc.constantFrom(null, ...Object.keys(VALID_TIMESTAMPS)),
      updated_at: fc.constantFrom(null, ...Object.keys(VALID_TIMESTAMPS)),
    },
    { requiredKeys: ["title", "content"] },
  );

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

/** A valid payload for `kind`, half the time with one field changed, added or removed. */
export const nearValidPayload = (kind: "create" | "update") => {
  const change = fc.oneof(
    fc.tuple(fc.constant("id"), idValue),
    fc.tuple(fc.constant("title"), titleValue),
    fc.tuple(fc.constant("content"), contentValue),
    fc.tuple(fc.constantFrom("created_at", "updated_at"), timestampValue),
    fc.tuple(unknownKey, fc.jsonValue({ maxDepth: 1 })),
    fc.tuple(fc.constantFrom("title", "content"), fc.constant(undefined)),
  );
  const valid = kind === "create" ? validCreatePayload() : validUpdatePayload;
  return fc.tuple(valid, fc.option(change, { freq: 2 })).map(([body, changed]) => {
    if (!changed) return body;
    const [key, value] = changed;
    const rest = Object.entries(body).filter(([name]) => name !== key);
    return Object.fromEntries(value === undefined ? rest : [...rest, [key, value]]);
  });
};
