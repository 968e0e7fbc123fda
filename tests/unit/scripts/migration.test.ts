// Unit: the parts of `npm run import` and `npm run export` that need no service: local times of a
// zone across daylight saving changes, ISO offsets, the identity check behind "already there", and
// how a copy tells "created" from "already there", and that a paused target stops it (against a
// server in the test's process).
import { type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { text } from "node:stream/consumers";
import { describe, expect, it } from "vitest";
import { StopError } from "../../../scripts/lib/cli.mjs";
import { copyPosts, differences } from "../../../scripts/lib/migration/copy.mjs";
import { ZonedClock, isoWithOffset } from "../../../scripts/lib/zoned-time.mjs";

const paris = new ZonedClock("Europe/Paris");
const utc = (iso: string) => Date.parse(iso);

describe("ZonedClock.instantsOf", () => {
  it.each([
    ["2024-15-01 12:00:00", ["2024-01-15T11:00:00Z"], "winter, UTC+1"],
    ["2024-15-07 12:00:00", ["2024-07-15T10:00:00Z"], "summer, UTC+2"],
    ["2024-31-03 01:59:59", ["2024-03-31T00:59:59Z"], "the last second before spring forward"],
    ["2024-31-03 03:00:00", ["2024-03-31T01:00:00Z"], "the first second after it"],
    ["2024-31-03 02:30:00", [], "the hour spring forward skips"],
    [
      "2024-27-10 02:30:00",
      ["2024-10-27T00:30:00Z", "2024-10-27T01:30:00Z"],
      "the hour fall-back repeats",
    ],
    ["2024-27-10 03:00:00", ["2024-10-27T02:00:00Z"], "after the repeated hour"],
  ])("%s → %j (%s)", (text, expected) => {
    expect(paris.instantsOf(text)).toEqual(expected.map(utc));
  });

  it.each([
    "2024-31-04 12:00:00",
    "2024-01-13 00:00:00",
    "2024-01-01 24:00:00",
    "2024-01-01T00:00:00Z",
    "",
  ])("refuses %j, which names no local time", (text) => {
    expect(paris.instantsOf(text)).toBeUndefined();
  });

  it("reads the day before the month, and shows an instant the same way", () => {
    expect(paris.show(utc("2024-03-05T23:30:00Z"))).toBe("2024-06-03 00:30:00");
    expect(new ZonedClock("UTC").instantsOf("2024-06-03 00:30:00")).toEqual([
      utc("2024-03-06T00:30:00Z"),
    ]);
  });

  it("throws on an unknown zone", () => {
    expect(() => new ZonedClock("Mars/Olympus")).toThrow(RangeError);
  });
});

describe("isoWithOffset", () => {
  it.each([
    ["2024-01-15T11:00:00Z", "2024-01-15T12:00:00+01:00"],
    ["2024-10-27T00:30:00Z", "2024-10-27T02:30:00+02:00"],
    ["2024-10-27T01:30:00Z", "2024-10-27T02:30:00+01:00"],
  ])("%s in Paris is %s, the same instant", (instant, expected) => {
    expect(isoWithOffset(paris, utc(instant))).toBe(expected);
    expect(Date.parse(expected)).toBe(utc(instant));
  });

  it("writes negative and half-hour offsets", () => {
    expect(isoWithOffset(new ZonedClock("America/St_Johns"), utc("2024-01-15T12:00:00Z"))).toBe(
      "2024-01-15T08:30:00-03:30",
    );
  });
});

describe("differences", () => {
  const source = {
    id: 1,
    title: "t",
    content: "c",
    created_at: utc("2024-10-27T00:30:00.400Z"),
    updated_at: null,
  };
  const shown = {
    id: 1,
    title: "t",
    content: "c",
    created_at: "2024-27-10 02:30:00",
    updated_at: null,
  };

  it("finds none when the target shows the same post, to the second, in its zone", () => {
    expect(differences(source, shown, paris)).toEqual([]);
  });

  it("names each field that differs", () => {
    expect(
      differences(
        source,
        {
          ...shown,
          title: "u",
          created_at: "2024-27-10 02:30:01",
          updated_at: "2024-01-01 00:00:00",
        },
        paris,
      ),
    ).toEqual(["title", "created_at", "updated_at"]);
    expect(differences({ ...source, updated_at: 0 }, shown, paris)).toEqual(["updated_at"]);
  });
});

describe("copyPosts", () => {
  const posts = [1, 2].map((id) => ({
    id,
    title: "t",
    content: "c",
    created_at: null,
    updated_at: null,
  }));
  const source = { posts, failed: [], ambiguous: [], source: "test" };
  /** A target on loopback answering each request with `answer`; its URL, and a way to close it. */
  async function serve(answer: Parameters<typeof createServer>[1]) {
    const server = createServer(answer);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    return { url: `http://127.0.0.1:${port}`, close: () => server.close() };
  }
  const json = (response: ServerResponse, status: number, body: unknown, headers = {}) =>
    response
      .writeHead(status, { "content-type": "application/json", ...headers })
      .end(JSON.stringify(body));

  it("counts a post as created only when its own create was sent again, whatever other lanes retried", async () => {
    // Post 1 is already there, and post 2's create is answered 503 once, then 409 (its first
    // attempt landed): post 1's read is held until post 2's retry has been sent, so the two
    // lanes' calls interleave.
    let post2Attempts = 0;
    let copying = false;
    let retried: () => void = () => {};
    const retrySent = new Promise<void>((resolve) => (retried = resolve));
    const service = await serve(async (request, response) => {
      if (request.method === "POST") {
        copying = true;
        const { id } = JSON.parse(await text(request)) as { id: number };
        if (id === 2 && ++post2Attempts === 1) return json(response, 503, { detail: "busy" });
        if (id === 2) retried();
        return json(response, 409, { detail: `Blog post #${id} already exists` });
      }
      const id = Number(request.url?.split("/").pop());
      if (id === 1 && copying) await retrySent; // not the copy's first probe, sent before it
      return json(response, 200, posts[id - 1]);
    });
    try {
      const options = { to: service.url, toZone: "UTC", concurrency: 2, dryRun: false };
      const { results } = await copyPosts(source, options);
      const outcomes = Object.fromEntries(results.map(({ id, outcome }) => [id, outcome]));
      expect(outcomes).toEqual({ 1: "already there", 2: "created" });
    } finally {
      service.close();
    }
  });

  // The probe (GET) is sent once; a create would be retried by the client were it not final.
  it.each([
    ["every request", "GET /api/post/1", 1],
    ["the creates", "POST /api/post", 2],
  ])(
    "stops at once on a target paused at its spending limit for %s, with its detail",
    async (_label, refused, requests) => {
      const detail = "Paused: the spending limit of 50 USD is reached; it resumes on 1 December";
      const seen: string[] = [];
      const service = await serve((request, response) => {
        seen.push(`${request.method} ${request.url}`);
        if (request.method === "GET" && refused.startsWith("POST")) return json(response, 404, {});
        json(response, 503, { detail }, { "retry-after": "2678400" });
      });
      try {
        const options = { to: service.url, toZone: "UTC", concurrency: 1, dryRun: false };
        const stopped: unknown = await copyPosts(source, options).catch((error) => error);
        expect(stopped).toBeInstanceOf(StopError);
        expect(stopped).toMatchObject({
          message: `The target ${service.url} answered 503 to ${refused}: ${detail}`,
          exitCode: 2,
        });
        expect(seen).toHaveLength(requests);
      } finally {
        service.close();
      }
    },
  );
});
