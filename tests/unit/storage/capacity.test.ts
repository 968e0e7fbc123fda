// Unit: an answer's consumed capacity charged to the request that made the call, in shapes
// DynamoDB Local does not give (a transaction's per-table list, split units).
import { describe, expect, it } from "vitest";
import type { StorageCounts } from "../../../lib/storage/counts.js";
import { charge, metered } from "../../../lib/storage/capacity.js";

/** The counts `charge` leaves after these answers, inside one request. */
async function charged(...answers: Parameters<typeof charge>[]): Promise<StorageCounts> {
  const counts: StorageCounts = {};
  await metered(counts, async () => {
    for (const [command, consumed] of answers) charge(command, consumed);
  });
  return counts;
}

describe("charge", () => {
  it("counts a read operation's units as read, any other as write, summed", async () => {
    expect(
      await charged(
        ["GetItemCommand", { CapacityUnits: 1 }],
        ["ScanCommand", { CapacityUnits: 2.5 }],
        ["PutItemCommand", { CapacityUnits: 2 }],
        ["UpdateItemCommand", { CapacityUnits: 1 }],
      ),
    ).toEqual({ ReadUnits: 3.5, WriteUnits: 3 });
  });

  it("takes every table of a list, and split read and write units as DynamoDB gives them", async () => {
    expect(
      await charged(
        ["TransactWriteItemsCommand", [{ CapacityUnits: 4 }, { CapacityUnits: 2 }]],
        ["BatchGetItemCommand", [{ CapacityUnits: 8 }]],
        [
          "TransactWriteItemsCommand",
          { CapacityUnits: 3, ReadCapacityUnits: 1, WriteCapacityUnits: 2 },
        ],
      ),
    ).toEqual({ ReadUnits: 9, WriteUnits: 8 });
  });

  it("leaves out zero and an answer with no figure", async () => {
    expect(
      await charged(["GetItemCommand", { CapacityUnits: 0 }], ["PutItemCommand", undefined]),
    ).toEqual({});
  });

  it("keeps two requests' counts apart while both are in flight", async () => {
    const [first, second]: StorageCounts[] = [{}, {}];
    const tick = () => new Promise((resolve) => setTimeout(resolve, 1));
    await Promise.all([
      metered(first, async () => {
        await tick();
        charge("GetItemCommand", { CapacityUnits: 1 });
      }),
      metered(second, async () => {
        charge("PutItemCommand", { CapacityUnits: 5 });
        await tick();
      }),
    ]);
    expect(first).toEqual({ ReadUnits: 1 });
    expect(second).toEqual({ WriteUnits: 5 });
  });
});
