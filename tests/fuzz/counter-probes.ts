// Fuzz inputs, the id counter: requests that name item 0, refused before storage, and valid
// requests around the counter's value, which reach storage and must leave the counter alone.
import fc from "fast-check";
import {
  type HostileRequest,
  type Kind,
  idempotencyHeader,
  plainFrame,
  requestFrame,
} from "./arbitraries.js";
import { validCreatePayload } from "./fields.js";

/**
 * Requests aimed at the id counter (item id 0): ones that name it, refused before storage, and
 * valid ones around its value, which reach storage: client ids squatting the values it will
 * issue next, then a counter-issued create; reads, updates and deletes of the ids beside it.
 * Built once the counter's value is known; `freshKey` gives an Idempotency-Key never sent before.
 */
export interface CounterProbe {
  attack: "name-zero" | "squat" | "beside";
  requests: (counter: number, freshKey: () => string) => [Kind, HostileRequest][];
}

/** A probe that fast-check prints by what it was built from, not by its function's source. */
function probe(
  attack: CounterProbe["attack"],
  from: unknown,
  requests: CounterProbe["requests"],
): CounterProbe {
  const printable = { [fc.toStringMethod]: () => `${attack} ${fc.stringify(from)}` };
  return Object.assign(printable, { attack, requests });
}

const json = (body: unknown, frame: Omit<HostileRequest, "body" | "isBase64Encoded" | "postId">) =>
  ({ ...frame, postId: undefined, body: JSON.stringify(body), isBase64Encoded: false }) as const;

const namingZero: fc.Arbitrary<CounterProbe> = fc
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
  .map((from) => {
    const [kind, id, body, frame] = from;
    const postId = kind === "list" || kind === "create" ? undefined : id;
    return probe("name-zero", from, () => [
      [kind, { ...frame, postId, body, isBase64Encoded: false }],
    ]);
  });

const squat: fc.Arbitrary<CounterProbe> = fc
  .tuple(
    fc.uniqueArray(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 4 }),
    fc.oneof(fc.constant(null), idempotencyHeader),
    validCreatePayload([1]).map(({ id: _, ...rest }) => rest),
    plainFrame,
  )
  .map((from) => {
    const [offsets, keyHeader, counted, frame] = from;
    return probe("squat", from, (counter, freshKey) => [
      ...offsets.map((offset): [Kind, HostileRequest] => [
        "create",
        json({ id: counter + offset, title: "squat", content: "" }, frame),
      ]),
      [
        "create",
        json(counted, {
          ...frame,
          headers: keyHeader ? { ...frame.headers, [keyHeader]: freshKey() } : frame.headers,
        }),
      ],
    ]);
  });

const beside: fc.Arbitrary<CounterProbe> = fc
  .tuple(
    fc.constantFrom<Kind>("get", "update", "delete"),
    fc.integer({ min: -1, max: 2 }),
    fc.constantFrom({}, { title: "beside the counter" }, { content: "last_id" }),
    requestFrame,
  )
  .map((from) => {
    const [kind, offset, changes, frame] = from;
    return probe("beside", from, (counter) => [
      [
        kind,
        {
          ...json(changes, frame),
          postId: String(Math.max(1, counter + offset)),
          ...(kind === "update" ? {} : { body: undefined }),
        },
      ],
    ]);
  });

export const counterAttack: fc.Arbitrary<CounterProbe> = fc.oneof(namingZero, squat, beside);
