// Integration: the list function's bundle streamed by aws-lambda-ric over DynamoDB Local, read as
// API Gateway reads it; a failure after the first byte comes from a fixture bundle of the route.
import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import * as esbuild from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiEvent } from "../helpers/api-event.mjs";
import { type PostsTable, freshTable } from "../helpers/db.js";
import {
  type Invocation,
  type LambdaRuntime,
  skipWithoutRuntimeClient,
  startLambdaRuntime,
} from "../helpers/lambda-runtime.js";
import { POST_KEYS } from "../helpers/post-shape.js";

// The list function's Node options, as serverless.yml sets them.
const { LIST_NODE_OPTIONS } = createRequire(import.meta.url)("../../config/limits.cjs") as {
  LIST_NODE_OPTIONS: string;
};

const skipped = skipWithoutRuntimeClient();
const root = fileURLToPath(new URL("../..", import.meta.url));
const POSTS = 1_500;
const content = "lorem ipsum dolor sit amet ".repeat(30);

let table: PostsTable;
let runtime: LambdaRuntime;

/** The function's settings, as serverless.yml gives them, over DynamoDB Local. */
const functionEnv = (endpoint: string, tableName: string) => ({
  TABLE_NAME: tableName,
  AWS_ENDPOINT_URL_DYNAMODB: endpoint,
  AWS_REGION: "us-east-1",
  AWS_ACCESS_KEY_ID: "local",
  AWS_SECRET_ACCESS_KEY: "local",
  AWS_LAMBDA_LOG_FORMAT: "JSON",
  LOG_LEVEL: "info",
  NODE_OPTIONS: LIST_NODE_OPTIONS,
});

function streamed(invocation: Invocation) {
  expect(invocation.kind).toBe("streamed");
  return invocation as Extract<Invocation, { kind: "streamed" }>;
}
/** The runtime's JSON log lines. */
const jsonLines = (runtime: LambdaRuntime) =>
  runtime
    .logs()
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

beforeAll(async () => {
  if (skipped) return;
  table = await freshTable("list-stream");
  for (let id = 1; id <= POSTS; id += 25) {
    await Promise.all(
      Array.from({ length: 25 }, (_, i) =>
        table.repository.create({ id: id + i, title: `post ${id + i}`, content }),
      ),
    );
  }
  runtime = await startLambdaRuntime({
    bundleDir: join(root, "dist/list-posts"),
    env: functionEnv(table.endpoint, table.tableName),
  });
}, 120_000);

afterAll(async () => {
  await runtime?.stop();
  await table?.drop();
});

describe.skipIf(skipped)("the list, streamed by the Lambda runtime", () => {
  it("sends its metadata, then every post ascending; gzipped when asked; 304 for its tag", async () => {
    const answer = streamed(await runtime.invoke(apiEvent({ method: "GET" })));
    expect(answer.complete).toBe(true);
    expect(answer.prelude).toMatchObject({
      statusCode: 200,
      headers: {
        "content-type": "application/json",
        "cache-control": "no-cache",
        etag: expect.stringMatching(/^"[A-Za-z0-9_-]{32}"$/),
      },
    });
    const posts = JSON.parse(answer.body.toString("utf8")) as Record<string, unknown>[];
    expect(posts).toHaveLength(POSTS);
    expect(posts.map((post) => post.id)).toEqual(Array.from({ length: POSTS }, (_, i) => i + 1));
    for (const post of posts) expect(Object.keys(post).sort()).toEqual(POST_KEYS);
    // The body came in many writes, not one buffered result.
    expect(answer.firstByteMs).toBeLessThan(answer.totalMs);

    const etag = String(answer.prelude?.headers?.etag);
    const gzip = apiEvent({ method: "GET", headers: { "accept-encoding": "gzip, br" } });
    const zipped = streamed(await runtime.invoke(gzip));
    expect(zipped.prelude?.headers).toMatchObject({
      "content-encoding": "gzip",
      vary: "accept-encoding",
      etag: `${etag.slice(0, -1)}-gzip"`,
    });
    // Compared as bytes: a deep equality of a megabyte element by element takes seconds.
    expect(gunzipSync(zipped.body).equals(answer.body)).toBe(true);
    expect(zipped.body.length).toBeLessThan(answer.body.length / 5);

    const held = await runtime.invoke(
      apiEvent({ method: "GET", headers: { "if-none-match": etag } }),
    );
    expect(held).toMatchObject({ complete: true, prelude: { statusCode: 304 } });
    expect(streamed(held).body.length).toBe(0);
  });

  it("shows a post written just before, and writes its request line", async () => {
    await table.repository.create({ id: POSTS + 1, title: "latest", content: "c" });
    const answer = streamed(await runtime.invoke(apiEvent({ method: "GET" })));
    const posts = JSON.parse(answer.body.toString("utf8")) as { id: number; title: string }[];
    expect(posts.at(-1)).toMatchObject({ id: POSTS + 1, title: "latest" });
    // The line is written once the stream has ended, so it may reach the log a moment later.
    const requestLine = () =>
      jsonLines(runtime).find((line) => line.function_request_id === answer.requestId);
    await expect.poll(requestLine, { timeout: 5_000 }).toMatchObject({
      message: "request",
      route: "GET /api/post",
      status: 200,
      // The write is in the change marker's ring: this list read that post, not the table.
      ListPatched: 1,
    });
  });
});

describe.skipIf(skipped)("a list whose storage fails before the first byte", () => {
  it("is a 500, streamed as its prelude and a detail", async () => {
    const broken = await startLambdaRuntime({
      bundleDir: join(root, "dist/list-posts"),
      // A closed port: every storage call fails.
      env: functionEnv("http://127.0.0.1:9", table.tableName),
    });
    try {
      const answer = streamed(await broken.invoke(apiEvent({ method: "GET" })));
      expect(answer).toMatchObject({ complete: true, prelude: { statusCode: 500 } });
      expect(JSON.parse(answer.body.toString("utf8"))).toEqual({ detail: expect.any(String) });
    } finally {
      await broken.stop();
    }
  });
});

describe.skipIf(skipped)("a list that fails after its first byte", () => {
  let dir = "";
  let cut: LambdaRuntime;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "blog-post-cut-list-"));
    await esbuild.build({
      entryPoints: [join(root, "tests/helpers/fixtures/cut-list.ts")],
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node22",
      outfile: join(dir, "index.mjs"),
      logLevel: "silent",
    });
    cut = await startLambdaRuntime({ bundleDir: dir, env: { AWS_LAMBDA_LOG_FORMAT: "JSON" } });
  });
  afterAll(async () => {
    await cut?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("keeps its 200, ends in error with a body no JSON parser takes, and logs the cut", async () => {
    const answer = streamed(await cut.invoke(apiEvent({ method: "GET" })));
    expect(answer).toMatchObject({ complete: false, errorType: "RangeError" });
    expect(answer.prelude?.statusCode).toBe(200);
    expect(answer.body.length).toBeGreaterThan(64 * 1024);
    expect(answer.body.toString("utf8").startsWith('[{"id":1},')).toBe(true);
    expect(() => JSON.parse(answer.body.toString("utf8"))).toThrow();
    // The runtime client's output reaches this process after the answer: wait for the line.
    const cutLine = () => jsonLines(cut).find((line) => line.message === "response cut");
    await expect.poll(cutLine, { timeout: 10_000 }).toMatchObject({
      level: "ERROR",
      status: 200,
      responseCut: true,
      ServerErrors: 1,
      error: { name: "RangeError", message: "the list broke after its first pieces" },
    });
  });
});
