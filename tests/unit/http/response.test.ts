// Unit: replies as API Gateway results: status helpers, gzip when accepted, any size buffered.
import { gunzipSync } from "node:zlib";
import type { APIGatewayProxyResult } from "aws-lambda";
import { describe, expect, it } from "vitest";
import { httpHandler } from "../../../lib/http/handler.js";
import { acceptsGzip, gzipMemo, gzipPieces } from "../../../lib/http/compress.js";
import {
  batches,
  created,
  errorOutgoing,
  noContent,
  ok,
  outgoing,
} from "../../../lib/http/response.js";
import { apiEvent, invoke } from "../../helpers/events.js";
import { recordingLogger } from "../../helpers/handlers.js";

describe("replies", () => {
  it("sets location on 201 and keeps the detail on 204", async () => {
    const { logger } = recordingLogger();
    const made = await invoke(
      httpHandler(async () => created({ id: 1 }, "/api/post/1"), logger),
      { method: "POST", body: {} },
    );
    expect(made).toMatchObject({
      status: 201,
      headers: { location: "/api/post/1" },
      body: { id: 1 },
    });
    const gone = await invoke(
      httpHandler(async () => noContent("Blog post #1 deleted"), logger),
      { method: "DELETE", postId: "1" },
    );
    expect(gone).toMatchObject({ status: 204, body: { detail: "Blog post #1 deleted" } });
    // No body reaches an HTTP client on a 204, so no content-type names one.
    expect(made.headers["content-type"]).toBe("application/json");
    expect(gone.headers["content-type"]).toBeUndefined();
    for (const response of [made, gone]) {
      expect(response.headers["x-content-type-options"]).toBe("nosniff");
      // Successful answers may be cached by a client; only errors are marked no-store.
      expect(response.headers["cache-control"]).toBeUndefined();
    }
  });
});

describe("compression and the response limit", () => {
  const { logger } = recordingLogger();
  const list = (count: number, size: number) =>
    httpHandler(
      async () => ok(Array.from({ length: count }, (_, id) => ({ id, content: "x".repeat(size) }))),
      logger,
    );
  const call = (handler: ReturnType<typeof list>, acceptEncoding?: string) =>
    handler(
      apiEvent({
        method: "GET",
        headers: acceptEncoding ? { "accept-encoding": acceptEncoding } : {},
      }),
    ) as Promise<APIGatewayProxyResult>;

  it.each([
    ["gzip", true],
    ["gzip, deflate, br", true],
    ["br;q=1.0, gzip;q=0.5", true],
    ["*", true],
    ["gzip;q=0", false],
    ["gzip;q=0, *", false],
    ["deflate, *;q=0.1", true],
    ["identity", false],
    [undefined, false],
  ])("Accept-Encoding %j allows gzip: %s", (header, expected) => {
    expect(acceptsGzip(header)).toBe(expected);
  });

  it("gzips a large body when the client accepts it, and the body decodes to the same JSON", async () => {
    const handler = list(50, 100);
    const plain = await call(handler);
    const zipped = await call(handler, "gzip");
    expect(plain.isBase64Encoded).toBeFalsy();
    expect(zipped).toMatchObject({
      isBase64Encoded: true,
      headers: { "content-encoding": "gzip" },
    });
    expect(gunzipSync(Buffer.from(zipped.body ?? "", "base64")).toString()).toBe(plain.body);
  });

  it("leaves small bodies alone", async () => {
    const response = await call(list(1, 10), "gzip");
    expect(response.isBase64Encoded).toBeFalsy();
    expect(response.headers?.["content-encoding"]).toBeUndefined();
  });

  it("answers a body over 6 MB in full, buffered (serverless-offline), plain or gzipped", async () => {
    const handler = list(7_000, 1_000); // ~7 MB of JSON, very compressible
    const plain = await call(handler);
    expect(plain.statusCode).toBe(200);
    expect(JSON.parse(plain.body)).toHaveLength(7_000);
    const zipped = await call(handler, "gzip");
    expect(zipped.statusCode).toBe(200);
    expect(gunzipSync(Buffer.from(zipped.body, "base64")).toString()).toBe(plain.body);
  });
});

describe("pieces grouped into batches", () => {
  it("keeps every piece in order, each batch about the size asked, never one of all", () => {
    const pieces = Array.from({ length: 100 }, (_, i) => `${i},`.padEnd(10, "x"));
    const grouped = [...batches(pieces, 95)];
    expect(grouped.flat()).toEqual(pieces);
    expect(grouped).toHaveLength(10);
    expect(grouped.every((batch) => batch.length === 10)).toBe(true);
  });

  it("measures text in UTF-8 bytes and bytes as they are, and keeps a short last batch", () => {
    expect([...batches([], 10)]).toEqual([]);
    expect([...batches(["é", "é"], 4)]).toEqual([["é", "é"]]);
    const bytes = Buffer.from("abc");
    expect([...batches([bytes, "de", "f"], 5)]).toEqual([[bytes, "de"], ["f"]]);
  });
});

describe("an answer's size as sent", () => {
  it("is the JSON's UTF-8 bytes, or gzip's when compressed, or the error's", async () => {
    const body = { text: "é".repeat(1_000) };
    const plain = await outgoing(ok(body), false);
    expect(plain.bytes).toBe(Buffer.byteLength(JSON.stringify(body)));
    const zipped = await outgoing(ok(body), true);
    expect(zipped.gzipped).toBe(true);
    expect(zipped.bytes).toBe(Buffer.concat(zipped.body as Buffer[]).length);
    expect(zipped.bytes).toBeLessThan(plain.bytes);
    const error = errorOutgoing(500, "é");
    expect(error.bytes).toBe(Buffer.byteLength('{"detail":"é"}'));
  });

  it("is nothing for a 304, which is never gzipped", async () => {
    const held = await outgoing(
      { statusCode: 304, body: undefined, headers: { etag: '"t"' } },
      true,
    );
    expect(held).toEqual({
      statusCode: 304,
      headers: { etag: '"t"', vary: "accept-encoding" },
      body: [],
      gzipped: false,
      bytes: 0,
    });
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
  });

  it("makes a valid empty gzip of no pieces", async () => {
    expect(gunzipSync(Buffer.concat(await gzipPieces([]))).length).toBe(0);
  });
});

describe("gzipMemo, a handler's memo of its last tagged gzip", () => {
  const body = ["x".repeat(2_000)];

  it("compresses a tagged body once, and again only for another tag", async () => {
    const compress = gzipMemo();
    const first = compress(body, '"a"');
    expect(compress(["other bytes"], '"a"')).toBe(first);
    const second = compress(body, '"b"');
    expect(second).not.toBe(first);
    expect(gunzipSync(Buffer.concat(await second)).toString()).toBe(body[0]);
  });

  it("never remembers an untagged body", () => {
    const compress = gzipMemo();
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
