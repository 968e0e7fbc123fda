// Fuzz inputs: arbitraries for hostile API Gateway requests to the five post handlers.
import fc from "fast-check";
import {
  HEADER_SETS,
  HUGE_BODIES,
  INVALID_IDEMPOTENCY_KEYS,
  INVALID_UTF8_BASE64,
  KNOWN_IDS,
  NONCANONICAL_POST_IDS,
  QUERY_STRINGS,
} from "./corpora.js";
import { hostileString, nearValidPayload, payload } from "./fields.js";

export type Kind = "list" | "get" | "create" | "update" | "delete";

export interface HostileRequest {
  postId: string | undefined;
  body: string | undefined;
  isBase64Encoded: boolean;
  headers: Record<string, string>;
  dropContentType: boolean;
  query: string;
}

/** Text that is not JSON, is JSON but not an object, or is almost JSON. */
const nonJsonText: fc.Arbitrary<string> = fc.oneof(
  hostileString(50),
  fc.constantFrom(
    ...["", " ", "\n", "null", "undefined", "NaN", "{", "}", "[]", "{}", '"{}"', "1", "true"],
    // Nearly JSON: single quotes, cut short, closed twice, trailing text or comma.
    "{'title': 't', 'content': 'c'}",
    ...['{"title":"t","content":"c"', '{"title":"t","content":"c"}}'],
    ...['{"title":"t","content":"c"} x', '{"title":"t","content":"c",}'],
    // A byte-order mark, other formats, a lone surrogate escaped, NULs escaped.
    '\ufeff{"title":"t","content":"c"}',
    ...["title=t&content=c", "<post><title>t</title></post>"],
    ...['{"title":"\\ud800","content":"c"}', '{"title":"\\u0000","content":"\\u0000"}'],
    // A key twice, prototype keys, a null id.
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
    ...["1.0", "1e3", "1E0", "10e-1", "-0", "0.0", "9007199254740991", "9007199254740992"],
    ...["9007199254740993", "1e400", "-1", "0x10", "01", ".5", "1."],
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

/** A body's text: mostly payloads (half near-valid, to reach storage), also other JSON, non-JSON,
 * deep and huge text. */
const bodyText = (kind: "create" | "update"): fc.Arbitrary<string | undefined> =>
  fc.oneof(
    { weight: 25, arbitrary: nearValidPayload(kind).map((p) => JSON.stringify(p)) },
    // A leading byte-order mark, as some Windows tools write it: one is ignored, a second is not.
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom("\ufeff", "\ufeff\ufeff", " \ufeff"), nearValidPayload(kind))
        .map(([mark, p]) => mark + JSON.stringify(p)),
    },
    { weight: 20, arbitrary: payload().map((p) => JSON.stringify(p)) },
    { weight: 1, arbitrary: payload().map((p) => JSON.stringify(p, null, "\t")) },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) },
    { weight: 3, arbitrary: nonJsonText },
    { weight: 1, arbitrary: numberLiteralText },
    { weight: 1, arbitrary: deepNestingText },
    { weight: 1, arbitrary: fc.constantFrom(...HUGE_BODIES) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );

const base64 = (text: string) => Buffer.from(text, "utf8").toString("base64");

/** Base64 as encoders write it: standard, MIME-wrapped, unpadded, URL-safe, spaced, stray chars. */
const BASE64_FORMS = [
  (encoded: string) => encoded,
  (encoded: string) => encoded.replace(/.{1,76}/g, "$&\n"),
  (encoded: string) => encoded.replace(/=+$/, ""),
  (encoded: string) => encoded.replace(/\+/g, "-").replace(/\//g, "_"),
  (encoded: string) => encoded.replace(/.{1,7}/g, "$& "),
  (encoded: string) => encoded.replace(/.{1,5}/g, "$&*"),
];

/** A body text as API Gateway may deliver it: plain, base64 (valid or not), or base64 of raw bytes. */
const encodedBody = (text: fc.Arbitrary<string | undefined>) =>
  fc.oneof(
    { weight: 10, arbitrary: text.map((body) => ({ body, isBase64Encoded: false })) },
    {
      weight: 7,
      arbitrary: fc.tuple(text, fc.constantFrom(...BASE64_FORMS)).map(([body, form]) => ({
        body: body === undefined ? undefined : form(base64(body)),
        isBase64Encoded: true,
      })),
    },
    {
      weight: 3,
      arbitrary: fc
        .oneof(
          fc.uint8Array({ maxLength: 48 }).map((bytes) => Buffer.from(bytes).toString("base64")),
          fc.constantFrom(...INVALID_UTF8_BASE64),
          hostileString(40),
          text.map((body) => body ?? ""),
        )
        .map((body) => ({ body, isBase64Encoded: true })),
    },
  );

/** Path ids: ids that exist, ids that do not, and non-canonical text. */
export const postId: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...KNOWN_IDS.map(String)) },
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

const visibleAscii = fc.integer({ min: 0x21, max: 0x7e }).map((code) => String.fromCharCode(code));

/** Idempotency-Keys: reused (often with another body), fresh, length bounds, invalid. */
export const idempotencyKey: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom("reused-1", "reused-2", "reused-3", "reused-4") },
  { weight: 3, arbitrary: fc.string({ unit: visibleAscii, minLength: 1, maxLength: 64 }) },
  { weight: 1, arbitrary: fc.constantFrom("!", "~".repeat(255)) },
  { weight: 2, arbitrary: fc.constantFrom(...INVALID_IDEMPOTENCY_KEYS) },
  { weight: 1, arbitrary: hostileString(10) },
);

export const idempotencyHeader = fc.constantFrom(
  "Idempotency-Key",
  "idempotency-key",
  "IDEMPOTENCY-KEY",
);

const frameWith = (headers: fc.Arbitrary<Record<string, string>>) =>
  fc.record({ headers, dropContentType: fc.boolean(), query: fc.constantFrom(...QUERY_STRINGS) });

export const requestFrame = frameWith(
  fc
    .tuple(
      fc.constantFrom(...HEADER_SETS),
      fc.oneof(
        { weight: 7, arbitrary: fc.constant(null) },
        { weight: 3, arbitrary: fc.tuple(idempotencyHeader, idempotencyKey) },
      ),
    )
    .map(([headers, key]) => (key ? { ...headers, [key[0]]: key[1] } : headers)),
);

export const plainFrame = frameWith(fc.constantFrom(...HEADER_SETS));

const ignoredBody = fc.oneof(
  { weight: 3, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: hostileString(20) },
  { weight: 1, arbitrary: payload().map((p) => JSON.stringify(p)) },
);

/** A hostile request for one handler: the parts that handler reads are the hostile ones. */
export const hostileRequest = (kind: Kind): fc.Arbitrary<HostileRequest> => {
  const bodyKind = kind === "create" || kind === "update" ? kind : undefined;
  const readsId = kind === "get" || kind === "update" || kind === "delete";
  return fc
    .tuple(
      readsId ? postId : fc.constant(undefined),
      encodedBody(bodyKind ? bodyText(bodyKind) : ignoredBody),
      requestFrame,
    )
    .map(([id, encoded, frame]) => ({ postId: id, ...encoded, ...frame }));
};

/** A create's body sent again: the same fields reordered, re-spaced or base64-encoded. */
export function resend(body: Record<string, unknown>, form: "reordered" | "spaced" | "base64") {
  const text = JSON.stringify(
    form === "reordered" ? Object.fromEntries(Object.entries(body).reverse()) : body,
    null,
    form === "spaced" ? 2 : undefined,
  );
  return form === "base64"
    ? { body: base64(text), isBase64Encoded: true }
    : { body: text, isBase64Encoded: false };
}
