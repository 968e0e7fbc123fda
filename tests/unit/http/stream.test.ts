// Unit: the streamed answer over a stand-in of the runtime's response stream: the prelude before
// the first byte, the body in order under backpressure, the 200 MB ceiling, a failure after the
// first byte, and when the handler streams at all.
import { Writable } from "node:stream";
import { gunzipSync } from "node:zlib";
import type { APIGatewayProxyEvent } from "aws-lambda";
import { describe, expect, it } from "vitest";
import type { BusinessStep } from "../../../lib/http/handler.js";
import type { ApiRequest } from "../../../lib/http/request.js";
import { type Outgoing, ok, okUnlessHeld } from "../../../lib/http/response.js";
import {
  type LambdaStreaming,
  STREAM_MAX_BYTES,
  streamedHandler,
  streamingRuntime,
  withinStreamLimit,
  writeStreamed,
} from "../../../lib/http/stream.js";
import { StorageError } from "../../../lib/posts/errors.js";
import { apiEvent } from "../../helpers/events.js";
import { quietLogger, recordingLogger } from "../../helpers/handlers.js";

/** What a stand-in stream took: the prelude (before `preludeAt` body bytes), chunks, the end. */
interface Taken {
  prelude?: { statusCode: number; headers: Record<string, string> };
  preludeAt?: number;
  chunks: Buffer[];
  ended: boolean;
}

/** A response stream and `HttpResponseStream.from` as the runtime's: prelude on first write. */
function standIn(highWaterMark = 16 * 1024, failAfter = Infinity) {
  const taken: Taken = { chunks: [], ended: false };
  let bytes = 0;
  let pending: { prelude: Taken["prelude"] } | undefined;
  // Like a socket: corked writes arrive together (writev), each write as one chunk here.
  const take = (chunk: Buffer, done: (error?: Error) => void) => {
    if (pending) {
      taken.prelude = pending.prelude;
      taken.preludeAt = bytes;
      pending = undefined;
    }
    bytes += chunk.length;
    if (bytes > failAfter) return done(new Error("connection reset"));
    taken.chunks.push(Buffer.from(chunk));
    setImmediate(done);
  };
  const stream = new Writable({
    highWaterMark,
    write: (chunk: Buffer, _encoding, done) => take(chunk, done),
    writev: (chunks, done) => take(Buffer.concat(chunks.map(({ chunk }) => chunk as Buffer)), done),
    final: (done) => ((taken.ended = true), done()),
  });
  const lambda: LambdaStreaming = {
    streamifyResponse: (handler) => handler,
    HttpResponseStream: { from: (target, prelude) => ((pending = { prelude }), target) },
  };
  return { stream, lambda, taken, body: () => Buffer.concat(taken.chunks) };
}

/** A JSON array of `count` small posts, as pieces (without its closing bracket when `open`). */
const listPieces = (count: number, open = false) => [
  ...Array.from({ length: count }, (_, i) => `${i ? "," : "["}{"id":${i}}`),
  ...(open ? [] : ["]"]),
];

const answer = (pieces: string[], extra: Partial<Outgoing> = {}): Outgoing => ({
  statusCode: 200,
  headers: { "content-type": "application/json", etag: '"t"' },
  body: pieces,
  gzipped: false,
  bytes: Buffer.byteLength(pieces.join("")),
  ...extra,
});

describe("writeStreamed", () => {
  it("sends the prelude before the first byte, then every piece in order, then ends", async () => {
    const { stream, lambda, taken, body } = standIn();
    const pieces = listPieces(20_000);
    await writeStreamed(lambda, stream, answer(pieces));
    expect(taken.prelude).toEqual({ statusCode: 200, headers: answer([]).headers });
    expect(taken).toMatchObject({ preludeAt: 0, ended: true });
    expect(body().toString()).toBe(pieces.join(""));
    // Chunks, not one write per piece and not one write of everything.
    expect(taken.chunks.length).toBeGreaterThan(1);
    expect(taken.chunks.length).toBeLessThan(pieces.length / 100);
  });

  it("waits for the stream to drain instead of piling the body up in memory", async () => {
    const { stream, lambda, body } = standIn(1024);
    let mostBuffered = 0;
    const write = stream.write.bind(stream);
    stream.write = ((chunk: never) => {
      const more = write(chunk);
      mostBuffered = Math.max(mostBuffered, stream.writableLength);
      return more;
    }) as typeof stream.write;
    const pieces = Array.from({ length: 100 }, () => "x".repeat(70 * 1024));
    await writeStreamed(lambda, stream, answer(pieces));
    expect(body().length).toBe(100 * 70 * 1024);
    // At most one chunk waits in the stream at a time.
    expect(mostBuffered).toBeLessThanOrEqual(2 * 70 * 1024);
  });

  it("sends gzip's chunks as they are", async () => {
    const { stream, lambda, body } = standIn();
    const zipped = [Buffer.from([1, 2, 3]), Buffer.from([4, 5])];
    await writeStreamed(lambda, stream, answer([], { body: zipped, gzipped: true, bytes: 5 }));
    expect([...body()]).toEqual([1, 2, 3, 4, 5]);
  });

  it("throws when the stream fails after the first byte, leaving a body no parser takes", async () => {
    const { stream, lambda, body } = standIn(16 * 1024, 200 * 1024);
    const pieces = listPieces(20_000);
    await expect(writeStreamed(lambda, stream, answer(pieces))).rejects.toThrow("connection reset");
    expect(body().length).toBeGreaterThan(0);
    expect(() => JSON.parse(body().toString())).toThrow();
  });
});

describe("withinStreamLimit", () => {
  it("passes an answer of exactly the limit and refuses one byte more, before any byte", () => {
    const fits = answer(["x"], { bytes: STREAM_MAX_BYTES });
    expect(withinStreamLimit(fits)).toBe(fits);
    const over = withinStreamLimit(answer(["x"], { bytes: STREAM_MAX_BYTES + 1 }));
    expect(over.statusCode).toBe(500);
    expect(JSON.parse(String(over.body[0]))).toEqual({
      detail:
        `Response too large: ${STREAM_MAX_BYTES + 1} bytes exceed Lambda's 200 MB streamed ` +
        "response limit (send Accept-Encoding: gzip to receive it compressed)",
    });
    expect(over.headers["cache-control"]).toBe("no-store");
    // 200 MB less room for the prelude.
    expect(STREAM_MAX_BYTES).toBe(200 * 1024 * 1024 - 64 * 1024);
  });

  it("says so when even the gzip is too large", () => {
    const over = withinStreamLimit(answer([], { gzipped: true, bytes: 11 }), 10);
    expect(JSON.parse(String(over.body[0])).detail).toMatch(/\(even compressed\)$/);
  });
});

describe("streamingRuntime", () => {
  const { lambda } = standIn();

  // serverless-offline defines awslambda but cannot stream; tests and scripts have no runtime.
  it.each([
    ["the Lambda runtime", lambda, {}, lambda],
    ["serverless-offline", lambda, { IS_OFFLINE: "true" }, undefined],
    ["no runtime", undefined, {}, undefined],
    ["a runtime that cannot stream", {} as LambdaStreaming, {}, undefined],
  ])("under %s is %s", (_label, runtime, env, expected) => {
    expect(streamingRuntime(runtime, env)).toBe(expected);
  });
});

describe("streamedHandler", () => {
  type Streamed = (event: APIGatewayProxyEvent, stream: Writable, context: object) => Promise<void>;
  const list = (pieces: string[]) => async () => okUnlessHeld(pieces, '"t"', undefined);
  /** Runs `step` for a GET with `headers`, streamed over a stand-in failing past `failAfter` bytes. */
  const stream = (step: BusinessStep, headers = {}, failAfter = Infinity) => {
    const target = standIn(16 * 1024, failAfter);
    const { logger, lines } = recordingLogger();
    const handler = streamedHandler(step, logger, {}, target.lambda) as unknown as Streamed;
    const event = apiEvent({ method: "GET", headers });
    const done = handler(event, target.stream, { getRemainingTimeInMillis: () => 10_000 });
    return { ...target, lines, done };
  };

  it("streams the step's answer, gzipped when asked, and logs one request line after it", async () => {
    const pieces = listPieces(300);
    const { taken, body, lines, done } = stream(list(pieces), { "accept-encoding": "gzip" });
    await done;
    expect(taken.prelude?.headers).toMatchObject({ "content-encoding": "gzip", etag: '"t-gzip"' });
    expect(gunzipSync(body()).toString()).toBe(pieces.join(""));
    expect(lines).toMatchObject([{ level: "info", fields: { status: 200, ServerErrors: 0 } }]);
    expect(lines[0]?.fields).not.toHaveProperty("responseCut");
  });

  it("streams a 304 as its prelude alone when the client holds the list", async () => {
    const held = async (request: ApiRequest) =>
      okUnlessHeld(["[]"], '"t"', request.header("if-none-match"));
    const { taken, body, done } = stream(held, { "if-none-match": '"t"' });
    await done;
    expect([taken.prelude?.statusCode, body().length, taken.ended]).toEqual([304, 0, true]);
  });

  it("answers a storage failure before the first byte with its 500 and detail", async () => {
    const failing = async () => Promise.reject(new StorageError("ThrottlingException: slow down"));
    const { taken, body, lines, done } = stream(failing);
    await done;
    expect(taken.prelude?.statusCode).toBe(500);
    expect(JSON.parse(body().toString()).detail).toMatch(/ThrottlingException: slow down$/);
    expect(lines[0]).toMatchObject({ level: "error", message: "request failed" });
  });

  it("logs a cut answer as an error with its 200 and throws, so the runtime ends the stream in error", async () => {
    const { lines, done } = stream(list(listPieces(20_000, true)), {}, 100 * 1024);
    await expect(done).rejects.toThrow("connection reset");
    const error = { message: "connection reset" };
    const fields = { status: 200, responseCut: true, ServerErrors: 1, ClientErrors: 0, error };
    expect(lines).toMatchObject([{ level: "error", message: "response cut", fields }]);
  });

  it("answers the 500 of the size ceiling instead of streaming a body too large", async () => {
    const huge = async () => ({ ...ok(undefined), json: ["[]"], jsonBytes: STREAM_MAX_BYTES + 1 });
    const { taken, lines, done } = stream(huge);
    await done;
    expect(taken.prelude?.statusCode).toBe(500);
    expect(lines[0]).toMatchObject({
      level: "error",
      fields: { status: 500, error: { message: expect.stringMatching(/Response too large/) } },
    });
  });

  it("is the buffered handler where the runtime cannot stream", async () => {
    const gone = async () => ({ statusCode: 404, body: { detail: "gone" } });
    const handler = streamedHandler(gone, quietLogger, {}, undefined);
    expect(await handler(apiEvent({ method: "GET" }))).toMatchObject({ statusCode: 404 });
  });
});
