// Unit: a stream record to the event subscribers receive, and the records that make none.
import { marshall } from "@aws-sdk/util-dynamodb";
import { describe, expect, it } from "vitest";
import {
  FULL_EVENT_MAX_BYTES,
  eventFromRecord,
  eventIdOf,
} from "../../../lib/events/post-event.js";
import { serializePost } from "../../../lib/posts/post.js";

const stored = {
  id: 7,
  title: "t",
  content: "c",
  created_at: "2026-03-04T15:06:07.000Z",
  updated_at: null,
  version: 1_795_000_000_000_002,
};
const at = { ApproximateCreationDateTime: 1_795_000_000 };
const image = (item: Record<string, unknown>) => marshall(item) as never;
const keys = (id: number) => ({ id: { N: String(id) } });

describe("eventFromRecord", () => {
  it.each([
    ["INSERT", "post.created"],
    ["MODIFY", "post.updated"],
  ])("maps %s to %s with the post as the API serializes it", (eventName, type) => {
    const record = { eventName, dynamodb: { ...at, Keys: keys(7), NewImage: image(stored) } };
    expect(eventFromRecord(record)).toEqual({
      type,
      timestamp: "2026-11-18T11:06:40.000Z",
      version: stored.version,
      data: serializePost(stored),
    });
  });

  it("maps REMOVE to post.deleted with the id and one version above the last write", () => {
    const record = {
      eventName: "REMOVE",
      dynamodb: { ...at, Keys: keys(7), OldImage: image(stored) },
    };
    expect(eventFromRecord(record)).toMatchObject({
      type: "post.deleted",
      version: stored.version + 1,
      data: { id: 7 },
    });
  });

  it("counts a delete whose record carries no old image, or a post with no version, from 0", () => {
    const removed = { eventName: "REMOVE", dynamodb: { ...at, Keys: keys(7) } };
    expect(eventFromRecord(removed)).toMatchObject({ type: "post.deleted", version: 1 });
    const { version: _none, ...unversioned } = stored;
    const modified = {
      eventName: "MODIFY",
      dynamodb: { ...at, Keys: keys(7), NewImage: image(unversioned) },
    };
    expect(eventFromRecord(modified)).toMatchObject({ type: "post.updated", version: 0 });
  });

  it("makes no event for a record without an event name", () => {
    expect(
      eventFromRecord({ dynamodb: { ...at, Keys: keys(7), NewImage: image(stored) } }),
    ).toBeUndefined();
  });

  it.each([
    ["the id counter", 0, { id: 0, last_id: 5 }],
    ["a change marker shard", -3, { id: -3, changes: 9 }],
  ])("makes no event for %s", (_, id, item) => {
    for (const eventName of ["INSERT", "MODIFY", "REMOVE"]) {
      const record = { eventName, dynamodb: { ...at, Keys: keys(id), NewImage: image(item) } };
      expect(eventFromRecord(record)).toBeUndefined();
    }
  });

  it("sends a post too large for an EventBridge entry in its thin form", () => {
    const content = "\u0001".repeat(50_000); // 6 bytes each once JSON escapes it
    const record = {
      eventName: "MODIFY",
      dynamodb: { ...at, Keys: keys(7), NewImage: image({ ...stored, content }) },
    };
    const event = eventFromRecord(record);
    expect(event?.data).toEqual({ ...serializePost(stored), content: undefined });
    expect(event?.data).not.toHaveProperty("content");
    expect(event).toMatchObject({
      omitted: ["content"],
      note: expect.stringContaining("/api/post/7"),
    });
    expect(Buffer.byteLength(JSON.stringify(event))).toBeLessThan(FULL_EVENT_MAX_BYTES);
  });

  it("keeps a post that fits whole", () => {
    const content = "x".repeat(FULL_EVENT_MAX_BYTES - 1_000);
    const record = {
      eventName: "INSERT",
      dynamodb: { ...at, Keys: keys(7), NewImage: image({ ...stored, content }) },
    };
    expect(eventFromRecord(record)?.data.content).toBe(content);
  });

  it("gives each change its own id, the same each time the record is mapped", () => {
    const record = {
      eventName: "INSERT",
      dynamodb: { ...at, Keys: keys(7), NewImage: image(stored) },
    };
    const id = eventIdOf(eventFromRecord(record)!);
    expect(eventIdOf(eventFromRecord(record)!)).toBe(id);
    expect(id).toBe(`msg_post7v${stored.version}`);
  });
});
