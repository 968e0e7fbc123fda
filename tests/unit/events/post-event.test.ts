// Unit: a stream record to the event subscribers receive, and the records that make none.
import { marshall } from "@aws-sdk/util-dynamodb";
import { describe, expect, it } from "vitest";
import {
  FULL_EVENT_MAX_BYTES,
  eventFromRecord,
  eventIdOf,
} from "../../../lib/events/post-event.js";
import { serializePost } from "../../../lib/posts/post.js";

const AT = "2026-03-04T15:06:07.000Z";
const version = 1_795_000_000_000_002;
const stored = { id: 7, title: "t", content: "c", created_at: AT, updated_at: null, version };
/** A stream record of `eventName` on item `id`, with `item` as its new (or old) image, if any. */
const change = (eventName: string | undefined, item?: object, image = "NewImage", id = 7) => ({
  eventName,
  dynamodb: {
    ApproximateCreationDateTime: 1_795_000_000,
    Keys: { id: { N: String(id) } },
    ...(item && { [image]: marshall(item) as never }),
  },
});

describe("eventFromRecord", () => {
  it.each([
    ["INSERT", "post.created"],
    ["MODIFY", "post.updated"],
  ])("maps %s to %s with the post as the API serializes it", (eventName, type) => {
    expect(eventFromRecord(change(eventName, stored))).toEqual({
      type,
      timestamp: "2026-11-18T11:06:40.000Z",
      version: stored.version,
      data: serializePost(stored),
    });
  });

  it("maps REMOVE to post.deleted with the id and one version above the last write", () => {
    expect(eventFromRecord(change("REMOVE", stored, "OldImage"))).toMatchObject({
      type: "post.deleted",
      version: stored.version + 1,
      data: { id: 7 },
    });
  });

  it("counts a delete whose record carries no old image, or a post with no version, from 0", () => {
    expect(eventFromRecord(change("REMOVE"))).toMatchObject({ type: "post.deleted", version: 1 });
    const { version: _none, ...unversioned } = stored;
    expect(eventFromRecord(change("MODIFY", unversioned))).toMatchObject({
      type: "post.updated",
      version: 0,
    });
  });

  it("makes no event for a record without an event name", () => {
    expect(eventFromRecord(change(undefined, stored))).toBeUndefined();
  });

  it.each([
    ["the id counter", { id: 0, last_id: 5 }],
    ["a change marker shard", { id: -3, changes: 9 }],
  ])("makes no event for %s", (_, item) => {
    for (const eventName of ["INSERT", "MODIFY", "REMOVE"]) {
      expect(eventFromRecord(change(eventName, item, "NewImage", item.id))).toBeUndefined();
    }
  });

  it("sends a post too large for an EventBridge entry in its thin form, and keeps one that fits", () => {
    const content = "\u0001".repeat(50_000); // 6 bytes each once JSON escapes it
    const event = eventFromRecord(change("MODIFY", { ...stored, content }));
    expect(event?.data).toEqual({ ...serializePost(stored), content: undefined });
    expect(event?.data).not.toHaveProperty("content");
    expect(event).toMatchObject({
      omitted: ["content"],
      note: expect.stringContaining("/api/post/7"),
    });
    expect(Buffer.byteLength(JSON.stringify(event))).toBeLessThan(FULL_EVENT_MAX_BYTES);
    const whole = { ...stored, content: "x".repeat(FULL_EVENT_MAX_BYTES - 1_000) };
    expect(eventFromRecord(change("INSERT", whole))?.data.content).toBe(whole.content);
  });

  it("gives each change its own id, the same each time the record is mapped", () => {
    expect(eventIdOf(eventFromRecord(change("INSERT", stored))!)).toBe(`msg_post7v${version}`);
  });
});
