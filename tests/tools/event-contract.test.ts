// asyncapi.yaml parses cleanly with @asyncapi/parser, holds what the mapping makes (whole
// and thin), and its checker catches an event that drifts from it.
import { marshall } from "@aws-sdk/util-dynamodb";
import { describe, expect, it } from "vitest";
import { eventFromRecord } from "../../lib/events/post-event.js";
import { webhookHeaders } from "../../lib/events/signature.js";
import { loadEventContract } from "../helpers/event-contract.js";

const check = await loadEventContract();

const post = { id: 12, title: "A title", content: "Some content", updated_at: null };
const stored = { ...post, created_at: "2026-03-04T15:06:07.000Z", version: 1_795_000_000_000_000 };
const record = (eventName: string, item: Record<string, unknown>) => ({
  eventName,
  dynamodb: {
    ApproximateCreationDateTime: 1_795_000_000,
    Keys: { id: { N: String(item.id) } },
    [eventName === "REMOVE" ? "OldImage" : "NewImage"]: marshall(item) as never,
  },
});
const secret = `whsec_${Buffer.alloc(24, 1).toString("base64")}`;
const inserted = eventFromRecord(record("INSERT", stored))!;
const monthFirst = { ...inserted.data, created_at: "2026-04-13 15:06:07" };

describe("the events' contract", () => {
  it.each(["INSERT", "MODIFY", "REMOVE"])("holds a %s record's event, with its headers", (name) => {
    const event = eventFromRecord(record(name, stored));
    const body = JSON.stringify(event);
    expect(check(event!, webhookHeaders([secret, secret], "msg_post12v1", body))).toEqual([]);
  });

  it("holds the thin form of a post too large to send whole", () => {
    const large = { ...stored, content: "\u0000".repeat(60_000) };
    const event = eventFromRecord(record("MODIFY", large));
    expect(event?.omitted).toEqual(["content"]);
    expect(check(event!)).toEqual([]);
  });

  it.each([
    ["an unknown type", { type: "post.published" }],
    ["a key the contract does not name", { extra: 1 }],
    ["no version", { version: undefined }],
    ["a version that is not an integer", { version: 1.5 }],
    ["a timestamp with a zone offset", { timestamp: "2026-11-18T11:06:40+01:00" }],
    ["a post with its month first", { data: monthFirst }],
    ["content beside the thin form's note", { omitted: ["content"], note: "read it" }],
    ["a delete carrying the post", { type: "post.deleted" }],
  ])("refuses %s", (_, change) => {
    const event = { ...inserted, ...change };
    expect(check(JSON.parse(JSON.stringify(event)))).not.toEqual([]);
  });

  it("refuses a signature header that is not v1", () => {
    const headers = { "webhook-id": "msg_post12v1", "webhook-timestamp": "1" };
    expect(check(inserted, { ...headers, "webhook-signature": "v2,abc=" })).not.toEqual([]);
  });
});
