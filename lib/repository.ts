// Storage adapter: the only module that knows DynamoDB, the table layout and the id counter.
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import {
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
  paginateScan,
} from "@aws-sdk/lib-dynamodb";
import type { Config } from "./config.js";
import { ConflictError, NotFoundError, StorageError } from "./errors.js";
import type { NewPost, Post, PostChanges } from "./post.js";
import { now } from "./timestamps.js";

/** What the handlers need from storage. */
export interface PostRepository {
  /** Every post, ascending by id. */
  list(): Promise<Post[]>;
  /** The post with this id, or undefined. */
  get(id: number): Promise<Post | undefined>;
  /** Stores a new post; throws ConflictError when a client-chosen id is taken. */
  create(post: NewPost): Promise<Post>;
  /** Applies changes and refreshes `updated_at`; throws NotFoundError when there is no post. */
  update(id: number, changes: PostChanges): Promise<Post>;
  /** Deletes the post if there is one. */
  delete(id: number): Promise<void>;
}

/**
 * The id counter lives in the posts table under id 0, which no request can name (path and
 * payload ids are positive), so it can never be read, listed, changed or deleted through the API.
 */
export const COUNTER_ID = 0;
const COUNTER_ATTRIBUTE = "last_id";

/** Builds the DynamoDB client once per instance: keep-alive on, short timeouts. */
export function createDocumentClient(config: Config): DynamoDBDocumentClient {
  const client = new DynamoDBClient({
    region: config.region,
    ...(config.endpoint && {
      endpoint: config.endpoint,
      // DynamoDB Local accepts any credentials; this keeps local runs free of AWS profiles.
      credentials: { accessKeyId: "local", secretAccessKey: "local" },
    }),
    requestHandler: { connectionTimeout: 1_000, requestTimeout: 5_000 },
  });
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
}

/** A write's condition did not hold; the repository turns it into a domain outcome. */
class ConditionFailed extends Error {}

/** Removes what a client must not see from an SDK error message: ARNs, account ids, table names. */
export function sanitizeErrorMessage(message: string, tableName: string): string {
  let text = message
    .replace(/arn:aws[\w-]*:[^\s"',]+/g, "<arn>")
    .replace(/\b\d{12}\b/g, "<account>");
  if (tableName) text = text.split(tableName).join("<table>");
  return text;
}

/** A DynamoDB-backed repository over one table. */
export class DynamoPostRepository implements PostRepository {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async list(): Promise<Post[]> {
    const posts: Post[] = [];
    const pages = paginateScan(
      { client: this.db },
      {
        TableName: this.tableName,
        ConsistentRead: true,
        FilterExpression: "id <> :counter",
        ExpressionAttributeValues: { ":counter": COUNTER_ID },
      },
    );
    await this.storage(async () => {
      for await (const page of pages) posts.push(...((page.Items ?? []) as Post[]));
    });
    return posts.sort((a, b) => a.id - b.id);
  }

  async get(id: number): Promise<Post | undefined> {
    const result = await this.storage(() =>
      this.db.send(
        new GetCommand({ TableName: this.tableName, Key: { id }, ConsistentRead: true }),
      ),
    );
    return result.Item as Post | undefined;
  }

  async create(input: NewPost): Promise<Post> {
    const timestamp = now();
    const fields = {
      title: input.title,
      content: input.content,
      created_at: input.created_at !== undefined ? input.created_at : timestamp,
      updated_at: input.updated_at !== undefined ? input.updated_at : timestamp,
    };
    if (input.id !== undefined) {
      const post = { id: input.id, ...fields };
      if (!(await this.putIfAbsent(post))) throw new ConflictError(input.id);
      return post;
    }
    // A counter value already taken by a client-chosen id is skipped, never overwritten.
    for (;;) {
      const post = { id: await this.nextId(), ...fields };
      if (await this.putIfAbsent(post)) return post;
    }
  }

  async update(id: number, changes: PostChanges): Promise<Post> {
    const names: Record<string, string> = { "#updated_at": "updated_at" };
    const values: Record<string, unknown> = { ":updated_at": now() };
    const assignments = ["#updated_at = :updated_at"];
    for (const [field, value] of Object.entries(changes)) {
      names[`#${field}`] = field;
      values[`:${field}`] = value;
      assignments.push(`#${field} = :${field}`);
    }
    try {
      const result = await this.storage(() =>
        this.db.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: { id },
            // Only an existing post can be updated: never create one, never resurrect a deleted one.
            ConditionExpression: "attribute_exists(id)",
            UpdateExpression: `SET ${assignments.join(", ")}`,
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: values,
            ReturnValues: "ALL_NEW",
          }),
        ),
      );
      return result.Attributes as Post;
    } catch (error) {
      if (error instanceof ConditionFailed) throw new NotFoundError(id);
      throw error;
    }
  }

  async delete(id: number): Promise<void> {
    if (id === COUNTER_ID) throw new Error("The id counter is not a post");
    await this.storage(() =>
      this.db.send(new DeleteCommand({ TableName: this.tableName, Key: { id } })),
    );
  }

  /** Takes the next value of the atomic counter. */
  private async nextId(): Promise<number> {
    const result = await this.storage(() =>
      this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { id: COUNTER_ID },
          UpdateExpression: "ADD #last :one",
          ExpressionAttributeNames: { "#last": COUNTER_ATTRIBUTE },
          ExpressionAttributeValues: { ":one": 1 },
          ReturnValues: "UPDATED_NEW",
        }),
      ),
    );
    const id = result.Attributes?.[COUNTER_ATTRIBUTE] as number | undefined;
    if (id === undefined || !Number.isSafeInteger(id)) {
      throw new StorageError("IdSpaceExhausted: the id counter returned no usable id");
    }
    return id;
  }

  /** Writes a post unless its id is taken; returns whether it was written. */
  private async putIfAbsent(post: Post): Promise<boolean> {
    try {
      await this.storage(() =>
        this.db.send(
          new PutCommand({
            TableName: this.tableName,
            Item: post,
            ConditionExpression: "attribute_not_exists(id)",
          }),
        ),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionFailed) return false;
      throw error;
    }
  }

  /** Runs one storage call: a failed condition becomes ConditionFailed, any other SDK failure a StorageError. */
  private async storage<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof Error)) throw error;
      if (error.name === "ConditionalCheckFailedException") throw new ConditionFailed();
      const description = `${error.name}: ${sanitizeErrorMessage(error.message, this.tableName)}`;
      throw new StorageError(description, { cause: error });
    }
  }
}
