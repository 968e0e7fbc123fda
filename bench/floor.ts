// The bench's floor: the storage calls the handlers make, through the client the runtime builds
// (createDocumentClient) and the production posts table, without a handler around them. Bundled
// like the handlers (bench/run.mjs), so both sides run the same SDK code and a ratio measures
// only what the handler adds.
import { BatchWriteCommand } from "@aws-sdk/lib-dynamodb";
import { type NewPost, type Post, type PostChanges, postToStore } from "../lib/posts/post.js";
import type { StorageCounts } from "../lib/storage/counts.js";
import { metered } from "../lib/storage/capacity.js";
import { ChangeMarker } from "../lib/storage/change-marker.js";
import { createDocumentClient } from "../lib/storage/client.js";
import { PostsTable } from "../lib/storage/posts-table.js";
import { Sender } from "../lib/storage/sender.js";

/** The storage calls of each operation, on the named table of DynamoDB Local at `endpoint`. */
export function createFloor({ endpoint, region }: { endpoint: string; region: string }) {
  const db = createDocumentClient({ endpoint, region });
  const sender = new Sender(db, []);
  const table = (name: string) => new PostsTable(sender, name);
  /** Every acknowledged write then advances the change marker for the post's id. */
  const advance = (name: string, id: number) => new ChangeMarker(sender, name).advance(id);
  return {
    get: (name: string, id: number) => table(name).get(id),
    /** A create as the repository makes it (block size 1): a counter call, then the put. */
    create: async (name: string, input: NewPost) => {
      const post = postToStore(input, await table(name).reserveIds(1));
      await table(name).put(post);
      await advance(name, post.id);
    },
    update: async (name: string, id: number, changes: PostChanges) => {
      await table(name).update(id, changes);
      await advance(name, id);
    },
    remove: async (name: string, id: number) => {
      await table(name).delete(id);
      await advance(name, id);
    },
    /** Every post, ascending by id, from a Scan (no JSON, no cache), and its read units. */
    list: async (name: string) => {
      const [posts, counts]: [Post[], StorageCounts] = [[], {}];
      await metered(counts, () => table(name).scanPages((page) => posts.push(...page)));
      return { posts: posts.sort((a, b) => a.id - b.id), units: counts.ReadUnits ?? 0 };
    },
    /** Seeds up to 25 posts in one BatchWrite (not a handler's call). */
    batchPut: async (name: string, posts: Post[]) => {
      const RequestItems = { [name]: posts.map((Item) => ({ PutRequest: { Item } })) };
      const { UnprocessedItems = {} } = await db.send(new BatchWriteCommand({ RequestItems }));
      // DynamoDB Local does not throttle: it leaves nothing unprocessed.
      if (Object.keys(UnprocessedItems).length > 0) throw new Error(`BatchWrite on ${name} cut`);
    },
    destroy: () => db.destroy(),
  };
}

export type Floor = ReturnType<typeof createFloor>;

/**
 * Cold-start floor with the SDK: the get handler's storage call (post 1 of TABLE_NAME) with no
 * handler around it, to tell the SDK's share of a cold start from ours. A process calls it once.
 */
export const handler = async () => {
  const { AWS_ENDPOINT_URL_DYNAMODB: endpoint = "", AWS_REGION: region = "" } = process.env;
  const item = await createFloor({ endpoint, region }).get(process.env.TABLE_NAME ?? "", 1);
  return { statusCode: item ? 200 : 404, body: JSON.stringify(item ?? {}) };
};
