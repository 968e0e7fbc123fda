// Unit: `npm run import`/`export`: local times across DST changes, ISO offsets, the identity check
// behind "already there", a copy's outcomes and stop (against a server in this process), and the
// refusals of a bad source file.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { text } from "node:stream/consumers";
import { describe, expect, it, onTestFinished } from "vitest";
import { StopError } from "../../../scripts/lib/cli.mjs";
import { copyPosts, differences } from "../../../scripts/lib/migration/copy.mjs";
import { readSource } from "../../../scripts/lib/migration/source.mjs";
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
    ["2024-27-10 02:30:00", ["2024-10-27T00:30:00Z", "2024-10-27T01:30:00Z"], "fall-back's hour"],
    ["2024-27-10 03:00:00", ["2024-10-27T02:00:00Z"], "after the repeated hour"],
  ])("%s → %j (%s)", (text, expected) => {
    expect(paris.instantsOf(text)).toEqual(expected.map(utc));
  });

  it.each([
    ...["2024-31-04 12:00:00", "2024-01-13 00:00:00", "2024-01-01 24:00:00"],
    ...["2024-01-01T00:00:00Z", ""],
  ])("refuses %j, which names no local time", (text) => {
    expect(paris.instantsOf(text)).toBeUndefined();
  });

  it("reads the day before the month, and shows an instant the same way", () => {
    expect(paris.show(utc("2024-03-05T23:30:00Z"))).toBe("2024-06-03 00:30:00");
    const instants = new ZonedClock("UTC").instantsOf("2024-06-03 00:30:00");
    expect(instants).toEqual([utc("2024-03-06T00:30:00Z")]);
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
    ["2024-01-15T12:00:00Z", "2024-01-15T08:30:00-03:30", "America/St_Johns"],
  ])("%s is %s, the same instant (in Paris unless named)", (instant, expected, zone?: string) => {
    expect(isoWithOffset(zone ? new ZonedClock(zone) : paris, utc(instant))).toBe(expected);
    expect(Date.parse(expected)).toBe(utc(instant));
  });
});

describe("differences", () => {
  const post = { id: 1, title: "t", content: "c", updated_at: null };
  const source = { ...post, created_at: utc("2024-10-27T00:30:00.400Z") };
  const shown = { ...post, created_at: "2024-27-10 02:30:00" };

  it("finds none when the target shows the same post, to the second, in its zone, else names each field", () => {
    expect(differences(source, shown, paris)).toEqual([]);
    const changed = {
      title: "u",
      created_at: "2024-27-10 02:30:01",
      updated_at: "2024-01-01 00:00:00",
    };
    expect(differences(source, { ...shown, ...changed }, paris)).toEqual(Object.keys(changed));
    expect(differences({ ...source, updated_at: 0 }, shown, paris)).toEqual(["updated_at"]);
  });
});

describe("copyPosts", () => {
  const fields = { title: "t", content: "c", created_at: null, updated_at: null };
  const posts = [1, 2].map((id) => ({ id, ...fields }));
  const source = { posts, failed: [], ambiguous: [], source: "test" };
  /** A target on loopback answering each request with `answer`, closed after the test; its URL. */
  async function serve(answer: Parameters<typeof createServer>[1]) {
    const server = createServer(answer);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    onTestFinished(() => void server.close());
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }
  const json = (response: ServerResponse, status: number, body: unknown, headers = {}) =>
    response
      .writeHead(status, { "content-type": "application/json", ...headers })
      .end(JSON.stringify(body));

  it("counts an identical post as created only while its key's first request may still make it", async () => {
    // Post 1: a 503, then a plain 409 (another request made it). Post 2: 409s saying "still running".
    const creates = new Map<number, number>();
    const url = await serve(async (request, response) => {
      const path = Number(request.url?.split("/").pop());
      if (request.method !== "POST") return json(response, 200, posts[path - 1]);
      const { id } = JSON.parse(await text(request)) as { id: number };
      creates.set(id, (creates.get(id) ?? 0) + 1);
      const again = { "retry-after": "0" };
      if (id === 1 && creates.get(id) === 1) return json(response, 503, { detail: "busy" }, again);
      json(response, 409, { detail: `Blog post #${id} already exists` }, id === 2 ? again : {});
    });
    const { results } = await copyPosts(source, {
      to: url,
      toZone: "UTC",
      concurrency: 2,
      dryRun: false,
    });
    const outcomes = Object.fromEntries(results.map(({ id, outcome }) => [id, outcome]));
    expect(outcomes).toEqual({ 1: "already there", 2: "created" });
    expect(creates.get(1)).toBe(2);
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
      const url = await serve((request, response) => {
        seen.push(`${request.method} ${request.url}`);
        if (request.method === "GET" && refused.startsWith("POST")) return json(response, 404, {});
        json(response, 503, { detail }, { "retry-after": "2678400" });
      });
      const options = { to: url, toZone: "UTC", concurrency: 1, dryRun: false };
      const stopped: unknown = await copyPosts(source, options).catch((error) => error);
      expect(stopped).toBeInstanceOf(StopError);
      expect(stopped).toMatchObject({
        message: `The target ${url} answered 503 to ${refused}: ${detail}`,
        exitCode: 2,
      });
      expect(seen).toHaveLength(requests);
    },
  );
});

describe("readSource", () => {
  const post = { id: 1, title: "t", content: "c", created_at: null, updated_at: null };
  it.each([
    ["a missing file", null, "UTC", /^Cannot read .*nowhere\.json: no such file$/],
    ["invalid JSON", "[{", "UTC", /^\S+nowhere\.json is not valid JSON \(/],
    ["an id twice", JSON.stringify([post, post]), "UTC", /nowhere\.json has post #1 twice$/],
    [
      "an unknown time zone",
      JSON.stringify([post]),
      "Europe/Pariss",
      /^Unknown time zone "Europe\/Pariss": use an IANA name such as Europe\/Paris or UTC$/,
    ],
  ])("refuses %s with one line, exit code 2", async (_, text, zone, message) => {
    const dir = await mkdtemp(join(tmpdir(), "blog-source-"));
    onTestFinished(() => rm(dir, { recursive: true }));
    const from = join(dir, "nowhere.json");
    if (text !== null) await writeFile(from, text);
    const error = await readSource(from, { zone }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StopError);
    expect(error).toMatchObject({ exitCode: 2, message: expect.stringMatching(message) });
  });
});
