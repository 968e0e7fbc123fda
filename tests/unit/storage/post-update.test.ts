// Unit: an update's second stamp after its condition failed on the item DynamoDB returned.
import { marshall } from "@aws-sdk/util-dynamodb";
import { describe, expect, it } from "vitest";
import { CREATE_RACE_MS, restamp, updateInput } from "../../../lib/storage/post-update.js";

const later = "2026-05-06T07:08:09.010Z";
const stored = (createdAt: string | null) => marshall({ id: 4, created_at: createdAt });

describe("restamp", () => {
  it.each([
    ["no post", undefined, undefined],
    ["a post with no created_at", stored(null), later],
    ["a post created before now", stored("2026-05-06T07:08:09.009Z"), later],
    ["a post created after now", stored("2026-05-06T07:08:09.011Z"), "2026-05-06T07:08:09.011Z"],
  ])("after %s", (_label, existing, expected) => {
    expect(restamp(existing, later)).toBe(expected);
  });
});

describe("updateInput", () => {
  it("lets a create within the race window after the stamp stop the write, and no other", () => {
    const input = updateInput("posts", 4, { title: "t" }, later);
    expect(input.ExpressionAttributeValues).toMatchObject({
      ":updated_at": later,
      ":title": "t",
      ":horizon": new Date(Date.parse(later) + CREATE_RACE_MS).toISOString(),
    });
    expect(input.ConditionExpression).toContain("#created > :horizon");
  });
});
