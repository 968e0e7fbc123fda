// Unit: the Idempotency-Key protocol's branches that need a race on a real table, over a mocked
// client answering as DynamoDB would; tests/integration/idempotency.test.ts runs it for real.
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import {
  DeleteCommand,
  DynamoDBDocumentClient,
  PutCommand,
  type PutCommandInput,
  TransactWriteCommand,
  UpdateCommand,
} from "@aws-sdk/lib-dynamodb";
import { marshall } from "@aws-sdk/util-dynamodb";
import { mockClient } from "aws-sdk-client-mock";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { IdempotencyError, PostExistsError, StorageError } from "../../../lib/posts/errors.js";
import { IdAllocator } from "../../../lib/storage/id-allocator.js";
import { IdempotencyKeyTable, epochSeconds } from "../../../lib/storage/idempotency-key-table.js";
import { IdempotentCreate } from "../../../lib/storage/idempotent-create.js";
import { Sender } from "../../../lib/storage/sender.js";
import { PostsTable } from "../../../lib/storage/posts-table.js";

const client = DynamoDBDocumentClient.from(new DynamoDBClient({ region: "us-east-1" }));
const mock = mockClient(client);
const sender = new Sender(client, ["posts", "keys"]);
const posts = new PostsTable(sender, "posts");
const keys = new IdempotencyKeyTable(sender, "keys");
let nextId = 0;
const once = new IdempotentCreate(sender, posts, new IdAllocator(async () => ++nextId, 1), keys);

const request = { key: "k", fingerprint: "f" };
const input = { title: "t", content: "c" };
const stored = { id: 40, title: "t", content: "c", created_at: null, updated_at: null };
const sdkError = (name: string, fields: Record<string, unknown> = {}) =>
  Object.assign(new Error(name), { name, ...fields });
const conditionFailed = () => sdkError("ConditionalCheckFailedException");
const cancelled = (...codes: string[]) =>
  sdkError("TransactionCanceledException", {
    CancellationReasons: codes.map((Code) => ({ Code })),
  });
const record = { key: "k", fingerprint: "f", owner: "someone else", state: "done" };
/** A claim refused by this record, which comes with the refusal as DynamoDB stored it. */
const refusedBy = (fields: Record<string, unknown>) =>
  sdkError("ConditionalCheckFailedException", {
    Item: marshall({ ...record, expires_at: epochSeconds() + 3_600, ...fields }),
  });
const ownerOf = (claim: PutCommandInput) => (claim.Item as { owner: string }).owner;
/** Claims the key, then finds the client's id taken: the post's write is cancelled. */
const idTaken = () => {
  mock.on(PutCommand).resolves({});
  mock.on(TransactWriteCommand).rejects(cancelled("ConditionalCheckFailed", "None"));
};

beforeEach(() => {
  mock.reset();
  nextId = 0;
});
afterAll(() => mock.restore());

describe("IdempotentCreate", () => {
  it("writes at once under a fresh key: one claim, one transaction", async () => {
    mock.on(PutCommand).resolves({});
    mock.on(TransactWriteCommand).resolves({});
    expect(await once.create(input, request)).toMatchObject({ id: 1 });
    expect(mock.calls()).toHaveLength(2); // the claim, then the post and its key together
  });

  it("fails a claim on a storage error instead of reading it as taken", async () => {
    mock.on(PutCommand).rejects(sdkError("InternalServerError"));
    await expect(once.create(input, request)).rejects.toBeInstanceOf(StorageError);
    expect(mock.calls()).toHaveLength(1);
  });

  it("asks a claim for the record that refuses it, so no read follows", async () => {
    mock.on(PutCommand).rejectsOnce(refusedBy({ status: 201, post: stored }));
    expect(await once.create(input, request)).toEqual(stored);
    expect(mock.commandCalls(PutCommand)[0]?.args[0].input).toMatchObject({
      ReturnValuesOnConditionCheckFailure: "ALL_OLD",
    });
    expect(mock.calls()).toHaveLength(1);
  });

  it("writes the post when a claim's answer was lost but the key is its own", async () => {
    mock.on(PutCommand).callsFake((claim: PutCommandInput) => {
      throw refusedBy({ owner: ownerOf(claim), state: "pending" });
    });
    mock.on(TransactWriteCommand).resolves({});
    expect(await once.create(input, request)).toMatchObject({ id: 1, title: "t" });
  });

  it.each([
    ["vanished", conditionFailed()],
    ["expired", refusedBy({ expires_at: epochSeconds() - 1, post: stored, status: 201 })],
  ])("claims again a key whose record %s", async (_label, refusal) => {
    mock.on(PutCommand).rejectsOnce(refusal).resolves({});
    mock.on(TransactWriteCommand).resolves({});
    expect(await once.create(input, request)).toMatchObject({ id: 1 });
    expect(mock.commandCalls(PutCommand)).toHaveLength(2);
  });

  it("answers with the outcome of the request that took the key over during the write", async () => {
    mock
      .on(PutCommand)
      .resolvesOnce({})
      .rejects(refusedBy({ status: 201, post: stored }));
    mock.on(TransactWriteCommand).rejects(cancelled("None", "ConditionalCheckFailed"));
    expect(await once.create(input, request)).toEqual(stored);
  });

  it("records a taken client id as 409 and answers 409, keeping the claim", async () => {
    idTaken();
    mock.on(UpdateCommand).resolves({});
    await expect(once.create({ ...input, id: 40 }, request)).rejects.toEqual(
      new PostExistsError(40),
    );
    const recorded = mock.commandCalls(UpdateCommand)[0]?.args[0].input;
    expect(recorded?.ExpressionAttributeValues).toMatchObject({ ":status": 409, ":id": 40 });
    expect(mock.commandCalls(DeleteCommand)).toHaveLength(0);
  });

  it("answers with the new owner's outcome when its 409 record lost to a takeover", async () => {
    idTaken();
    mock
      .on(PutCommand)
      .resolvesOnce({})
      .rejects(refusedBy({ status: 201, post: stored }));
    mock.on(UpdateCommand).rejects(conditionFailed());
    expect(await once.create({ ...input, id: 40 }, request)).toEqual(stored);
  });

  it("fails, and releases its claim, when storage fails while it records a 409", async () => {
    idTaken();
    mock.on(UpdateCommand).rejects(sdkError("InternalServerError"));
    mock.on(DeleteCommand).resolves({});
    await expect(once.create({ ...input, id: 40 }, request)).rejects.toBeInstanceOf(StorageError);
    expect(mock.commandCalls(PutCommand)).toHaveLength(1);
    expect(mock.commandCalls(DeleteCommand)).toHaveLength(1);
  });

  it("releases its claim when storage fails, so a retry can run again", async () => {
    mock.on(PutCommand).resolves({});
    mock.on(TransactWriteCommand).rejects(sdkError("InternalServerError"));
    mock.on(DeleteCommand).resolves({});
    await expect(once.create(input, request)).rejects.toBeInstanceOf(StorageError);
    expect(mock.commandCalls(DeleteCommand)[0]?.args[0].input.Key).toEqual({ key: "k" });
  });

  it("waits for a request still in progress and replays its outcome", async () => {
    mock
      .on(PutCommand)
      .rejectsOnce(refusedBy({ state: "pending", lease_until: Date.now() + 60_000 }))
      .rejects(refusedBy({ status: 201, post: stored }));
    expect(await once.create(input, request)).toEqual(stored);
    expect(mock.commandCalls(PutCommand)).toHaveLength(2);
  });
});

it("IdempotencyError names itself", () => {
  expect(new IdempotencyError("reused").name).toBe("IdempotencyError");
});
