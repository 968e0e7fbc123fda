// The Idempotency-Key table, its claims, leases and recorded outcomes.
import { DeleteCommand, PutCommand, type UpdateCommandInput } from "@aws-sdk/lib-dynamodb";
import { unmarshall } from "@aws-sdk/util-dynamodb";
import { IDEMPOTENCY_TTL_SECONDS, type IdempotentRequest } from "../posts/idempotency-key.js";
import type { Post } from "../posts/post.js";
import { ConditionFailed, type Sender } from "./sender.js";

/** How long a claimed key is held before a retry may take it over (beyond the function timeout). */
const CLAIM_LEASE_MS = 15_000;

/** A stored Idempotency-Key record. */
interface KeyRecord {
  key: string;
  fingerprint: string;
  owner: string;
  state: "pending" | "done";
  lease_until: number;
  expires_at: number;
  status?: 201 | 409;
  post?: Post;
  conflict_id?: number;
}

/**
 * A claim's outcome: the key is now this request's, or the record that refused it, as it stood
 * then (returned with the refusal, so no second read is needed).
 */
export type Claim = { claimed: true } | { claimed: false; record: KeyRecord | undefined };

/** What the first request with a key ended in: a post, or a taken client-chosen id. */
export type KeyOutcome = { status: 201; post: Post } | { status: 409; id: number };

export const epochSeconds = () => Math.floor(Date.now() / 1000);

/** The table of Idempotency-Key records (partition key `key`, TTL on `expires_at`). */
export class IdempotencyKeyTable {
  constructor(
    private readonly sender: Sender,
    readonly tableName: string,
  ) {}

  /** Records a key as pending for `owner`, unless it is live; expired or abandoned keys are retaken. */
  async claim(request: IdempotentRequest, owner: string, signal?: AbortSignal): Promise<Claim> {
    const record: KeyRecord = {
      key: request.key,
      fingerprint: request.fingerprint,
      owner,
      state: "pending",
      lease_until: Date.now() + CLAIM_LEASE_MS,
      expires_at: epochSeconds() + IDEMPOTENCY_TTL_SECONDS,
    };
    const put = new PutCommand({
      TableName: this.tableName,
      Item: record,
      ConditionExpression:
        "attribute_not_exists(#key) OR expires_at < :now_s OR " +
        "(#state = :pending AND lease_until < :now_ms AND fingerprint = :fingerprint)",
      ExpressionAttributeNames: { "#key": "key", "#state": "state" },
      ExpressionAttributeValues: {
        ":now_s": epochSeconds(),
        ":now_ms": Date.now(),
        ":pending": "pending",
        ":fingerprint": request.fingerprint,
      },
      ReturnValuesOnConditionCheckFailure: "ALL_OLD",
    });
    try {
      await this.sender.send(put, signal);
      return { claimed: true };
    } catch (error) {
      if (!(error instanceof ConditionFailed)) throw error;
      // The refusal's item comes as DynamoDB wrote it, not through the document client.
      const existing = error.existing as Parameters<typeof unmarshall>[0] | undefined;
      return { claimed: false, record: existing && (unmarshall(existing) as KeyRecord) };
    }
  }

  /** The update that marks a key done with its outcome, only while `owner` still holds it. */
  finish(
    key: string,
    owner: string,
    outcome: KeyOutcome,
  ): UpdateCommandInput & { UpdateExpression: string } {
    const recorded =
      outcome.status === 201
        ? { update: "post = :post", values: { ":post": outcome.post } }
        : { update: "conflict_id = :id", values: { ":id": outcome.id } };
    return {
      TableName: this.tableName,
      Key: { key },
      UpdateExpression: `SET #state = :done, #status = :status, ${recorded.update} REMOVE lease_until`,
      ConditionExpression: "#owner = :owner",
      ExpressionAttributeNames: { "#state": "state", "#owner": "owner", "#status": "status" },
      ExpressionAttributeValues: {
        ":done": "done",
        ":owner": owner,
        ":status": outcome.status,
        ...recorded.values,
      },
    };
  }

  /** Frees a claimed key after a storage failure, so the client's retry can run again. */
  async release(key: string, owner: string, signal?: AbortSignal): Promise<void> {
    try {
      const release = new DeleteCommand({
        TableName: this.tableName,
        Key: { key },
        ConditionExpression: "#owner = :owner AND #state = :pending",
        ExpressionAttributeNames: { "#owner": "owner", "#state": "state" },
        ExpressionAttributeValues: { ":owner": owner, ":pending": "pending" },
      });
      await this.sender.send(release, signal);
    } catch {
      // The lease expires on its own; a retry after it takes the key over.
    }
  }
}
