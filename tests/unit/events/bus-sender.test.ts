// Unit: post events put on the bus with PutEvents (asyncapi.yaml's entry, 10 entries and 256 KB a
// request, a partial failure answered as the first event not put), over a mocked EventBridge.
import { EventBridgeClient, PutEventsCommand } from "@aws-sdk/client-eventbridge";
import { mockClient } from "aws-sdk-client-mock";
import { beforeEach, describe, expect, it } from "vitest";
import { entryBytes, putOnBus } from "../../../lib/events/bus-sender.js";
import { FULL_EVENT_MAX_BYTES, type PostEvent } from "../../../lib/events/post-event.js";

const client = new EventBridgeClient({ region: "eu-west-1" });
const eventBridge = mockClient(client);
const bus = { client, name: "blog-post-api-test-events" };
const logged: [string, Record<string, unknown>][] = [];
const log = (message: string, fields: Record<string, unknown>) => logged.push([message, fields]);

/** The event of post `id`'s update, its JSON about `bytes` long. */
const event = (id: number, bytes = 200): PostEvent => ({
  type: "post.updated",
  timestamp: "2026-11-25T18:59:01.000Z",
  version: 1_795_633_140_528_001,
  data: { id, title: "t", content: "x".repeat(Math.max(0, bytes - 150)) },
});
const changes = (events: PostEvent[]) => events.map((e, at) => ({ at, event: e }));
/** What each PutEvents request held, as the post ids of its entries. */
const requests = () =>
  eventBridge
    .commandCalls(PutEventsCommand)
    .map(({ args }) => (args[0].input.Entries ?? []).map((e) => JSON.parse(e.Detail!).data.id));
const putAll = () => ({
  FailedEntryCount: 0,
  Entries: Array.from({ length: 10 }, (_, i) => ({ EventId: `id-${i}` })),
});

beforeEach(() => {
  eventBridge.reset();
  eventBridge.on(PutEventsCommand).resolves(putAll());
  logged.length = 0;
});

describe("putOnBus", () => {
  it("puts each event as the contract's entry: source, detail-type, the event as detail", async () => {
    const posted = event(1);
    eventBridge.on(PutEventsCommand).resolves({}); // no entry refused, no failure counted: all put
    expect(await putOnBus(bus, changes([posted]), log)).toBeUndefined();
    expect(eventBridge.commandCalls(PutEventsCommand)[0]?.args[0].input.Entries).toEqual([
      {
        EventBusName: "blog-post-api-test-events",
        Source: "blog-post-api",
        DetailType: "Blog post changed",
        Detail: JSON.stringify(posted),
      },
    ]);
  });

  it("puts at most 10 entries and 256 KB a request, in order", async () => {
    const events = Array.from({ length: 25 }, (_, i) => event(i + 1));
    expect(await putOnBus(bus, changes(events), log)).toBeUndefined();
    expect(requests().map((ids) => ids.length)).toEqual([10, 10, 5]);
    expect(requests().flat()).toEqual(events.map(({ data }) => data.id));
    eventBridge.resetHistory();
    // The largest whole events go one at a time, 100 KB ones two.
    const large = [1, 2, 3, 4, 5].map((id) => event(id, FULL_EVENT_MAX_BYTES - 500));
    await putOnBus(bus, changes(large), log);
    expect(requests()).toEqual([[1], [2], [3], [4], [5]]);
    const medium = [1, 2, 3, 4, 5].map((id) => event(id, 100_000));
    eventBridge.resetHistory();
    await putOnBus(bus, changes(medium), log);
    expect(requests()).toEqual([[1, 2], [3, 4], [5]]);
  });

  it("counts an entry as EventBridge does: time, source, detail-type, detail, resources", () => {
    const entry = { Source: "é", DetailType: "ab", Detail: '{"a":"€"}', Resources: ["r1"] };
    expect(entryBytes(entry)).toBe(2 + 2 + 11 + 2);
    expect(entryBytes({ ...entry, Time: new Date(0), EventBusName: "not counted" })).toBe(31);
    expect(entryBytes({ Detail: "{}" })).toBe(2);
  });

  it("answers the first event an entry's ErrorCode refused, and puts nothing after its request", async () => {
    eventBridge
      .on(PutEventsCommand)
      .resolvesOnce(putAll())
      .resolvesOnce({
        FailedEntryCount: 2,
        Entries: Array.from({ length: 10 }, (_, i) =>
          i === 3 || i === 6
            ? { ErrorCode: "InternalFailure", ErrorMessage: "x" }
            : { EventId: "e" },
        ),
      });
    const events = Array.from({ length: 30 }, (_, i) => event(i + 1));
    expect(await putOnBus(bus, changes(events), log)).toBe(13);
    expect(requests()).toHaveLength(2);
    expect(logged).toEqual([
      [
        "post events not put on the bus",
        { failed: 2, codes: ["InternalFailure", "InternalFailure"] },
      ],
    ]);
  });

  it("takes a FailedEntryCount no entry explains, or a failed request, as all refused", async () => {
    eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 1, Entries: [] });
    expect(await putOnBus(bus, changes([event(1), event(2)]), log)).toBe(0);
    // Throttled past the SDK's retries.
    eventBridge.on(PutEventsCommand).rejects(new Error("Rate exceeded"));
    expect(await putOnBus(bus, [{ at: 4, event: event(1) }], log)).toBe(4);
    expect(logged.at(-1)?.[1]).toEqual({ error: "Error: Rate exceeded" });
  });
});
