// Unit: replies as API Gateway results: status helpers, gzip when accepted (from 1 KB on), any
// size buffered.
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { bufferedResult, httpHandler } from "../../../lib/http/handler.js";
import { acceptsGzip, gzipMemo, gzipPieces } from "../../../lib/http/compress.js";
import {
  batches,
  created,
  errorOutgoing,
  noContent,
  ok,
  outgoing,
  type Reply,
} from "../../../lib/http/response.js";
import { apiEvent, invoke } from "../../helpers/events.js";
import { quietLogger } from "../../helpers/handlers.js";

describe("replies", () => {
  it("sets location on 201 and keeps the detail on 204", async () => {
    const sent = async (reply: Reply) => {
      const step = async () => reply;
      return invoke(httpHandler(step, quietLogger), { method: "GET" });
    };
    const made = await sent(created({ id: 1 }, "/api/post/1"));
    const headers = { location: "/api/post/1", "content-type": "application/json" };
    expect(made).toMatchObject({ status: 201, headers, body: { id: 1 } });
    const gone = await sent(noContent("Blog post #1 deleted"));
    expect(gone).toMatchObject({ status: 204, body: { detail: "Blog post #1 deleted" } });
    // No body reaches an HTTP client on a 204, so no content-type names one.
    expect(gone.headers["content-type"]).toBeUndefined();
    for (const response of [made, gone]) {
      expect(response.headers["x-content-type-options"]).toBe("nosniff");
      // Successful answers may be cached by a client; only errors are marked no-store.
      expect(response.headers["cache-control"]).toBeUndefined();
    }
  });
});

describe("compression and the response limit", () => {
  const unzip = (body: string) => gunzipSync(Buffer.from(body, "base64")).toString();

  const takes = ["gzip", "gzip, deflate, br", "br;q=1.0, gzip;q=0.5", "*", "gzip;level=1;q=0.5"];
  const refuses = ["gzip;q=0", "gzip; q=0", "gzip ;q=0", " gzip ; level=1 ; q=0", "gzip;q=0, *"];
  it.each([
    ...[...takes, "deflate, *;q=0.1"].map((header) => [header, true] as const),
    ...[...refuses, "identity", undefined].map((header) => [header, false] as const),
  ])("Accept-Encoding %j allows gzip: %s", (header, expected) => {
    expect(acceptsGzip(header)).toBe(expected);
  });

  it("compresses from 1 KB on: a body of exactly 1024 bytes is gzipped, 1023 is not", async () => {
    const answer = async (json: string) =>
      bufferedResult(await outgoing({ statusCode: 200, body: undefined, json: [json] }, true));
    const zipped = await answer("x".repeat(1024));
    expect(zipped.isBase64Encoded).toBe(true);
    expect(unzip(zipped.body)).toBe("x".repeat(1024));
    const small = await answer("x".repeat(1023));
    expect(small.isBase64Encoded).toBeUndefined();
    expect(small.headers).not.toHaveProperty("content-encoding");
  });

  it("answers a body over 6 MB in full, buffered (serverless-offline), plain or gzipped", async () => {
    const rows = Array.from({ length: 7_000 }, (_, id) => ({ id, content: "x".repeat(1_000) }));
    const handler = httpHandler(async () => ok(rows), quietLogger); // ~7 MB, very compressible
    const call = (headers = {}) => handler(apiEvent({ method: "GET", headers }));
    const plain = await call();
    expect(plain.statusCode).toBe(200);
    expect(JSON.parse(plain.body)).toHaveLength(7_000);
    expect(plain.isBase64Encoded).toBeFalsy();
    const zipped = await call({ "accept-encoding": "gzip" });
    expect(zipped).toMatchObject({
      statusCode: 200,
      isBase64Encoded: true,
      headers: { "content-encoding": "gzip" },
    });
    expect(unzip(zipped.body)).toBe(plain.body);
  });
});

describe("pieces grouped into batches", () => {
  it("keeps every piece in order, each batch about the size asked, never one of all", () => {
    const pieces = Array.from({ length: 100 }, (_, i) => `${i},`.padEnd(10, "x"));
    const grouped = [...batches(pieces, 95)];
    expect(grouped.flat()).toEqual(pieces);
    expect(grouped).toHaveLength(10);
    expect(grouped.every((batch) => batch.length === 10)).toBe(true);
    // Text is measured in UTF-8 bytes, bytes as they are; a short last batch is kept.
    expect([...batches([], 10)]).toEqual([]);
    expect([...batches(["é", "é"], 4)]).toEqual([["é", "é"]]);
    const bytes = Buffer.from("abc");
    expect([...batches([bytes, "de", "f"], 5)]).toEqual([[bytes, "de"], ["f"]]);
  });
});

describe("an answer's size as sent", () => {
  it("is the JSON's UTF-8 bytes, or gzip's when compressed, or the error's, or none", async () => {
    const body = { text: "é".repeat(1_000) };
    const plain = await outgoing(ok(body), false);
    expect(plain.bytes).toBe(Buffer.byteLength(JSON.stringify(body)));
    const zipped = await outgoing(ok(body), true);
    expect(zipped.gzipped).toBe(true);
    expect(zipped.bytes).toBe(Buffer.concat(zipped.body as Buffer[]).length);
    expect(zipped.bytes).toBeLessThan(plain.bytes);
    const error = errorOutgoing(500, "é");
    expect(error.bytes).toBe(Buffer.byteLength('{"detail":"é"}'));
    // Nothing for a 304, which is never gzipped.
    const reply = { statusCode: 304, body: undefined, headers: { etag: '"t"' } };
    const held = await outgoing(reply, true);
    const headers = { etag: '"t"', vary: "accept-encoding" };
    expect(held).toEqual({ statusCode: 304, headers, body: [], gzipped: false, bytes: 0 });
  });
});

describe("gzip over pieces", () => {
  it("compresses text and bytes of any size, across the scratch buffer's edges, in order", async () => {
    const pieces = [
      "[",
      ...Array.from({ length: 3_000 }, (_, i) =>
        Buffer.from(`${i ? "," : ""}"${"é".repeat(i % 50)}"`),
      ),
      Buffer.alloc(200 * 1024, 0x61),
      "]",
    ];
    const zipped = await gzipPieces(pieces);
    const expected = Buffer.concat(pieces.map((p) => (typeof p === "string" ? Buffer.from(p) : p)));
    expect(gunzipSync(Buffer.concat(zipped)).equals(expected)).toBe(true);
    // No pieces make a valid empty gzip.
    expect(gunzipSync(Buffer.concat(await gzipPieces([]))).length).toBe(0);
  });
});

describe("gzipMemo, a handler's memo of its last tagged gzip", () => {
  const body = ["x".repeat(2_000)];

  it("compresses a tagged body once, again only for another tag, never one untagged", async () => {
    const compress = gzipMemo();
    const first = compress(body, '"a"');
    expect(compress(["other bytes"], '"a"')).toBe(first);
    const second = compress(body, '"b"');
    expect(second).not.toBe(first);
    expect(gunzipSync(Buffer.concat(await second)).toString()).toBe(body[0]);
    // An untagged body is never remembered.
    expect(compress(body, undefined)).not.toBe(compress(body, undefined));
  });

  it("forgets a compression that failed, so the next request tries again", async () => {
    const compress = gzipMemo();
    const unreadable = {
      get length(): number {
        throw new Error("unreadable piece");
      },
    };
    const broken = compress([unreadable as unknown as Uint8Array], '"a"');
    await expect(broken).rejects.toThrow("unreadable piece");
    const retried = compress(body, '"a"');
    expect(retried).not.toBe(broken);
    expect(gunzipSync(Buffer.concat(await retried)).toString()).toBe(body[0]);
  });
});
