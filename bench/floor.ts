// The bench's floor: the storage calls the handlers make, through the client the runtime builds
// (createDocumentClient) and the production posts table, without a handler around them. Bundled like the handlers
// (bench/bundles.mjs), so both sides run the same SDK code and a ratio measures only what the
// handler adds.
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
  /** Each write's own calls, without the change marker's ADD that follows it. */
  const withoutMarker = {
    /** A create as the repository makes it (block size 1): a counter call, then the put. */
    create: async (name: string, input: NewPost) =>
      table(name).put(postToStore(input, await table(name).reserveIds(1))),
    update: (name: string, id: number, changes: PostChanges) => table(name).update(id, changes),
    remove: (name: string, id: number) => table(name).delete(id),
  };
  /** Then the marker's ADD and slot, as every acknowledged write makes them, for the post's id. */
  const marked =
    <A extends unknown[], R>(write: (name: string, ...args: A) => Promise<R>) =>
    async (name: string, ...args: A) => {
      const result = await write(name, ...args);
      const written = (result as { id?: unknown } | undefined)?.id ?? args[0];
      await new ChangeMarker(sender, name).advance(Number(written));
      return result;
    };
  return {
    get: (name: string, id: number) => table(name).get(id),
    put: (name: string, post: Post) => table(name).put(post),
    nextId: (name: string) => table(name).reserveIds(1),
    create: marked(withoutMarker.create),
    update: marked(withoutMarker.update),
    remove: marked(withoutMarker.remove),
    withoutMarker,
    /** The read units of one consistent Scan of the whole table, as DynamoDB reports them. */
    scanUnits: async (name: string) => {
      const counts: StorageCounts = {};
      await metered(counts, () => table(name).scanPages(() => {}));
      return counts.ReadUnits ?? 0;
    },
    /** Every post, ascending by id, from every Scan page (no JSON, no cache). */
    list: async (name: string) => {
      const posts: Post[] = [];
      await table(name).scanPages((page) => posts.push(...page));
      return posts.sort((a, b) => a.id - b.id);
    },
    /** Seeds up to 25 posts in one BatchWrite (not a handler's call), retrying what is left over. */
    batchPut: async (name: string, posts: Post[]) => {
      let pending = { [name]: posts.map((Item) => ({ PutRequest: { Item } })) };
      for (let attempt = 0; Object.keys(pending).length > 0; attempt++) {
        if (attempt === 20) throw new Error(`BatchWrite on ${name}: items still unprocessed`);
        const result = await db.send(new BatchWriteCommand({ RequestItems: pending }));
        pending = (result.UnprocessedItems ?? {}) as typeof pending;
      }
    },
    destroy: () => db.destroy(),
  };
}

export type Floor = ReturnType<typeof createFloor>;

let forHandler: Floor | undefined;

/**
 * Cold-start floor with the SDK: the get handler's storage call (post 1 of TABLE_NAME) with no
 * handler around it, to tell the SDK's share of a cold start from ours.
 */
export const handler = async (_event: unknown) => {
  const { AWS_ENDPOINT_URL_DYNAMODB: endpoint = "", AWS_REGION: region = "us-east-1" } =
    process.env;
  forHandler ??= createFloor({ endpoint, region });
  const item = await forHandler.get(process.env.TABLE_NAME ?? "", 1);
  return { statusCode: item ? 200 : 404, body: JSON.stringify(item ?? {}) };
};
