// Unit: storage failures as the code acts on them: ConditionFailed or a StorageError keeping its
// cause. The SDK's errors are built here, as DynamoDB Local cannot give some (a retried condition).
import { describe, expect, it } from "vitest";
import { ConditionFailed, callStorage, sanitizeErrorMessage } from "../../../lib/storage/sender.js";
import { StorageError } from "../../../lib/posts/errors.js";

const sdkError = (name: string, fields: Record<string, unknown> = {}) =>
  Object.assign(new Error(`${name} happened`), { name, ...fields });
/** `name` carrying cancellation reasons: `codes`, then an item that did not fail. */
const cancelled = (name: string, ...codes: string[]) =>
  sdkError(name, { CancellationReasons: [...codes.map((Code) => ({ Code })), { Code: "None" }] });
const failing = (error: unknown) => callStorage(() => Promise.reject(error), ["posts"]);
const caught = (error: unknown) => failing(error).catch((e: unknown) => e);

describe("callStorage", () => {
  it("passes a result through", async () => {
    expect(await callStorage(async () => 42, [])).toBe(42);
  });

  it.each([
    ["no metadata", {}, false],
    ["one attempt", { $metadata: { attempts: 1 } }, false],
    ["a second attempt", { $metadata: { attempts: 2 } }, true],
  ])("maps a failed condition after %s to ConditionFailed", async (_label, metadata, retried) => {
    const Item = { id: { N: "7" } };
    const error = await caught(sdkError("ConditionalCheckFailedException", { Item, ...metadata }));
    expect(error).toBeInstanceOf(ConditionFailed);
    expect(error).toMatchObject({ reasons: [], existing: Item, retried });
  });

  it("maps a transaction cancelled only by conditions to ConditionFailed with each item's reason", async () => {
    const error = await caught(cancelled("TransactionCanceledException", "ConditionalCheckFailed"));
    expect(error).toBeInstanceOf(ConditionFailed);
    expect(error).toMatchObject({ reasons: ["ConditionalCheckFailed", "None"], retried: false });
  });

  it.each([
    ["a transaction conflict", cancelled("TransactionCanceledException", "TransactionConflict")],
    ["a cancellation without reasons", sdkError("TransactionCanceledException")],
    ["reasons on another error", cancelled("ValidationException", "None")],
    ["a timeout", sdkError("TimeoutError")],
  ])("maps %s to a StorageError that keeps its cause", async (_label, cause) => {
    const error = await caught(cause);
    expect(error).toBeInstanceOf(StorageError);
    expect(error).toMatchObject({ cause });
    expect((error as Error).message).toMatch(new RegExp(`${cause.name}: ${cause.name} happened$`));
  });

  it("rethrows what is not an Error as it is", async () => {
    await expect(failing("a string")).rejects.toBe("a string");
  });
});

describe("ConditionFailed", () => {
  it("by default names no reasons, no item and no retry", () => {
    expect(new ConditionFailed()).toMatchObject({
      message: "condition failed",
      reasons: [],
      existing: undefined,
      retried: false,
    });
  });
});

describe("sanitizeErrorMessage", () => {
  it("removes ARNs (of every partition), account ids and the table name", () => {
    const message =
      "User: arn:aws:sts::123456789012:assumed-role/x/y is not authorized on resource arn:aws:dynamodb:us-east-1:123456789012:table/prod-posts; table prod-posts, account 123456789012, in arn:aws-cn:dynamodb:cn-north-1:123456789012:table/prod-posts";
    expect(sanitizeErrorMessage(message, ["prod-posts"])).toBe(
      "User: <arn> is not authorized on resource <arn>; table <table>, account <account>, in <arn>",
    );
  });

  it("leaves a message alone when a table name is not set", () => {
    expect(sanitizeErrorMessage("the key is undefined here", [undefined, ""])).toBe(
      "the key is undefined here",
    );
  });

  it("replaces a short table name only where it stands as a whole name", () => {
    const message = "connect ECONNREFUSED 127.0.0.1:8000; Requested resource not found: Table: t";
    expect(sanitizeErrorMessage(message, ["t"])).toBe(
      "connect ECONNREFUSED 127.0.0.1:8000; Requested resource not found: Table: <table>",
    );
    expect(
      sanitizeErrorMessage("table/t.v2 and t.v2 but not t.v20 or at.v2; t.v2.", ["t.v2"]),
    ).toBe("table/<table> and <table> but not t.v20 or at.v2; <table>.");
  });
});
