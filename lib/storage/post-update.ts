// An update's conditional write. An update is stamped when it starts, but a delete and a create of
// a client-chosen id can slip in before it lands; it then lands on the new post, and is stamped
// again so that updated_at never precedes that post's created_at.
import type { UpdateCommandInput } from "@aws-sdk/lib-dynamodb";
import { unmarshall } from "@aws-sdk/util-dynamodb";
import type { PostChanges } from "../posts/post.js";
import { VERSION_ATTRIBUTE } from "./post-version.js";

/**
 * How far past an update's stamp a post's created_at may lie and still be a create that landed
 * while the update was on its way: longer than any write's deadline plus clock skew. A client's
 * created_at further ahead is the client's own, and updated_at may precede it.
 */
export const CREATE_RACE_MS = 60_000;

/** Attempts of an update whose post is replaced under it again and again; then it fails. */
export const UPDATE_ATTEMPTS = 3;

/** The UpdateItem that sets `changes` and `updated_at: stamp` on post `id`, if it exists. */
export function updateInput(
  tableName: string,
  id: number,
  changes: PostChanges,
  stamp: string,
): UpdateCommandInput {
  const fields = Object.entries({ ...changes, updated_at: stamp });
  const names = Object.fromEntries(fields.map(([field]) => [`#${field}`, field]));
  const values = Object.fromEntries(fields.map(([field, value]) => [`:${field}`, value]));
  const assignments = fields.map(([field]) => `#${field} = :${field}`);
  return {
    TableName: tableName,
    Key: { id },
    // Only an existing post: never create one, never resurrect a deleted one. Nor one created
    // after the stamp, within the race window: that is a concurrent create's (see restamp).
    ConditionExpression:
      "attribute_exists(id) AND (NOT attribute_type(#created, :string) OR " +
      "#created <= :updated_at OR #created > :horizon)",
    // Every write of a post raises its version (lib/storage/post-version.ts).
    UpdateExpression: `SET ${assignments.join(", ")} ADD #version :one`,
    ExpressionAttributeNames: { ...names, "#version": VERSION_ATTRIBUTE, "#created": "created_at" },
    ExpressionAttributeValues: {
      ...values,
      ":one": 1,
      ":string": "S",
      ":horizon": new Date(Date.parse(stamp) + CREATE_RACE_MS).toISOString(),
    },
    ReturnValues: "ALL_NEW",
    ReturnValuesOnConditionCheckFailure: "ALL_OLD",
  };
}

/**
 * The stamp to try again with, after the condition failed on `existing` (the item as DynamoDB
 * returned it): the later of `later` and the post's created_at; undefined when there is no post.
 */
export function restamp(existing: Record<string, unknown> | undefined, later: string) {
  if (!existing) return undefined;
  const createdAt = unmarshall(existing as Parameters<typeof unmarshall>[0]).created_at as unknown;
  return typeof createdAt === "string" && createdAt > later ? createdAt : later;
}
