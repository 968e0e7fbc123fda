// The typed client (client/index.mjs) in Chromium, on a page of another origin than the API's:
// the browser, not the test, decides which cross-origin calls may be sent (preflights) and what the
// page may read of each answer (exposed headers); a page of an unlisted origin is refused.
import { accessSync, constants } from "node:fs";
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import type { APIGatewayProxyResult } from "aws-lambda";
import { build } from "esbuild";
import { type Browser, type Page, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as client from "../../client/index.mjs";
import { apiEvent } from "../helpers/api-event.mjs";
import { type Offline, startOffline } from "../helpers/offline.js";
import { AUTH_SETTINGS, token } from "../helpers/tokens.js";

/** Debian's chromium package by default; CHROMIUM_PATH names another Chromium. */
const CHROMIUM = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
const INSTALL =
  `Chromium not found at ${CHROMIUM}: install Debian's chromium package ` +
  "(apt-get install chromium) to run the browser tests";

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

// Without Chromium this file says what to install and skips, except on CI, where it fails.
const missing = !executable(CHROMIUM);
const skipped = missing && !process.env.CI;
if (skipped) console.warn(INSTALL);

/** Headless, making no connection of its own (updates, sync), which nothing here should await. */
const CHROMIUM_ARGS = [
  ...["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"],
  ...["--disable-background-networking", "--disable-component-update", "--disable-sync"],
];

/** Request headers a cross-origin call may carry only once a preflight allowed them. */
const PREFLIGHTED = ["authorization", "content-type", "idempotency-key", "if-none-match"];

/** serverless names a function `<service>-<stage>-<key>`; startOffline serves the stage `test`. */
const GET_FUNCTION = "blog-post-api-test-getPost";

/** What the page's module puts on its global object: the client, as the browser loaded it. */
type PageGlobals = { blogClient: typeof client };

/** The client as a browser app ships it: one ES module for the browser, bundled in memory. */
async function clientBundle(): Promise<string> {
  const { outputFiles } = await build({
    entryPoints: [fileURLToPath(new URL("../../client/index.mjs", import.meta.url))],
    bundle: true,
    format: "esm",
    platform: "browser",
    write: false,
    logLevel: "silent",
  });
  return outputFiles[0]!.text;
}

/** The page: it loads the bundle and leaves it on its global object for the test's scripts. */
const PAGE = `<!doctype html>
<meta charset="utf-8">
<title>The blog client in a browser</title>
<link rel="icon" href="data:,">
<script type="module">
  import * as blogClient from "/client.mjs";
  globalThis.blogClient = blogClient;
</script>
`;

/** Serves the page and the bundle; one of these per page origin. */
function pageServer(bundle: string): Server {
  const files: Record<string, [string, string]> = {
    "/": ["text/html; charset=utf-8", PAGE],
    "/client.mjs": ["text/javascript; charset=utf-8", bundle],
  };
  return createServer((request, response) => {
    const [type, body] = files[request.url ?? ""] ?? [];
    if (!type) return void response.writeHead(404).end();
    response.writeHead(200, { "content-type": type }).end(body);
  });
}

/** An answer the Lambda proxy stand-in passed on: the caller's origin and the function's result. */
type Passed = { origin: string | undefined; statusCode: number; headers: Record<string, unknown> };

/** API Gateway's Lambda proxy for `GET /api/post/{id}`: the get function's result, as it is. */
function lambdaProxy(api: Offline, passed: Passed[]): Server {
  return createServer((request, response) => {
    const id = /^\/api\/post\/(\d+)$/.exec(request.url ?? "")?.[1];
    if (request.method !== "GET" || id === undefined) return void response.writeHead(404).end();
    const headers = Object.fromEntries(
      Object.entries(request.headers).map(([name, value]) => [name, [value].flat().join(", ")]),
    );
    const event = apiEvent({ method: "GET", postId: id, headers });
    fetch(`${api.lambdaUrl}/2015-03-31/functions/${GET_FUNCTION}/invocations`, {
      method: "POST",
      body: JSON.stringify(event),
    })
      .then((invoked) => invoked.json() as Promise<APIGatewayProxyResult>)
      .then(({ statusCode, headers: answer = {}, body, isBase64Encoded }) => {
        passed.push({ origin: headers.origin, statusCode, headers: answer });
        response.writeHead(statusCode, answer as Record<string, string>);
        response.end(isBase64Encoded ? Buffer.from(body, "base64") : body);
      })
      .catch((error: unknown) => {
        response.writeHead(502, { "content-type": "text/plain" }).end(String(error));
      });
  });
}

/** Listens on a free loopback port; resolves to the origin it serves. */
async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function close(server: Server): Promise<void> {
  if (!server.listening) return;
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

/** A request Chromium sent or a preflight's answer, as DevTools saw it. */
type Seen = { url: string; method?: string; status?: number; headers: Record<string, string> };

const lowerCased = (headers: Record<string, string>) =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));

describe.skipIf(skipped)("the client in Chromium, on a page of another origin", () => {
  let api: Offline;
  let writer: string;
  let browser: Browser;
  const servers: Server[] = [];
  /** The page origin CORS_ORIGINS lists, and one it does not. */
  let allowedOrigin: string;
  let refusedOrigin: string;
  let proxyUrl: string;
  const passed: Passed[] = [];

  beforeAll(async () => {
    if (missing) throw new Error(INSTALL);
    const bundle = await clientBundle();
    const pages = [pageServer(bundle), pageServer(bundle)];
    servers.push(...pages);
    [allowedOrigin, refusedOrigin] = (await Promise.all(pages.map(listen))) as [string, string];
    // Both at once; whichever starts is kept even when the other fails, so that afterAll stops it.
    const [offline, launched] = await Promise.allSettled([
      startOffline({
        label: "browser-client",
        env: { ...AUTH_SETTINGS, CORS_ORIGINS: allowedOrigin },
      }),
      chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS }),
    ]);
    if (offline.status === "fulfilled") api = offline.value;
    if (launched.status === "fulfilled") browser = launched.value;
    const failed = [offline, launched].find((started) => started.status === "rejected");
    if (failed) throw failed.reason;
    writer = await token();
    const proxy = lambdaProxy(api, passed);
    servers.push(proxy);
    proxyUrl = await listen(proxy);
  });

  afterAll(async () => {
    // The browser first: its open connections would keep the servers from closing.
    await browser?.close();
    await Promise.all(servers.map(close));
    await api?.stop();
  });

  /** A page of `origin` in a fresh context, once it loaded the client; its console and requests. */
  async function openPage(origin: string) {
    const context = await browser.newContext();
    const page: Page = await context.newPage();
    const consoleLines: string[] = [];
    page.on("console", (message) => consoleLines.push(message.text()));
    // DevTools' view of the network shows preflights and the headers sent, unlike Playwright's.
    const devtools = await context.newCDPSession(page);
    await devtools.send("Network.enable");
    const sent: Seen[] = [];
    const preflights: Seen[] = [];
    devtools.on("Network.requestWillBeSent", ({ request: { method, url, headers }, type }) => {
      if (type === "Fetch") sent.push({ method, url, headers: lowerCased(headers) });
    });
    devtools.on("Network.responseReceived", ({ response: { url, status, headers }, type }) => {
      if (type === "Preflight") preflights.push({ url, status, headers: lowerCased(headers) });
    });
    await page.goto(`${origin}/`);
    await page.waitForFunction(() => "blogClient" in globalThis);
    return { page, consoleLines, sent, preflights };
  }

  // Each operation's answers over HTTP are proved in tests/http/client.test.ts.
  it("lists, creates, reads, updates and deletes, reading ETag and Location, with a 304", async () => {
    const { page, sent, preflights } = await openPage(allowedOrigin);
    const outcome = await page.evaluate(
      async ({ baseUrl, writer }) => {
        const { createBlogClient } = (globalThis as unknown as PageGlobals).blogClient;
        const blog = createBlogClient({ baseUrl, token: writer });
        const before = await blog.listPosts();
        const created = await blog.createPost({ title: "From a browser", content: "By Chromium" });
        const { id } = created.post;
        const read = await blog.getPost(id);
        const readAgain = await blog.getPost(id, { ifNoneMatch: read.etag });
        const updated = await blog.updatePost(id, { title: "Changed in a browser" });
        const deleted = await blog.deletePost(id);
        return {
          id,
          created: [created.response.status, created.post.title, created.location],
          read: [read.notModified, read.etag],
          readAgain: [readAgain.notModified, readAgain.etag],
          updated: updated.title,
          deleted: deleted.response.status,
          before: [before.notModified, before.etag],
        };
      },
      { baseUrl: api.baseUrl, writer },
    );
    const tag = expect.stringMatching(/^"/);
    expect(outcome).toEqual({
      id: expect.any(Number),
      // Location and ETag are not among the headers a page may read unless exposed.
      created: [201, "From a browser", `/api/post/${outcome.id}`],
      read: [false, tag],
      readAgain: [true, outcome.read[1]],
      updated: "Changed in a browser",
      deleted: 204,
      before: [false, tag],
    });
    expect(await api.table.posts()).not.toContainEqual(expect.objectContaining({ id: outcome.id }));

    // Chromium sends these headers cross-origin only once a preflight allowed them; each did.
    const carried = new Set(sent.flatMap((request) => Object.keys(request.headers)));
    for (const header of PREFLIGHTED) expect(carried, header).toContain(header);
    expect(preflights.length).toBeGreaterThan(0);
    for (const preflight of preflights) {
      expect(preflight.status, preflight.url).toBeLessThan(300);
      expect(preflight.headers["access-control-allow-origin"]).toBe(allowedOrigin);
      const allowed = (preflight.headers["access-control-allow-headers"] ?? "").toLowerCase();
      expect(allowed.split(/\s*,\s*/)).toEqual(expect.arrayContaining(PREFLIGHTED));
    }
    expect(sent.map(({ method }) => method)).toEqual(
      expect.arrayContaining(["GET", "POST", "PUT", "DELETE"]),
    );
  });

  // serverless-offline allows every Origin, API Gateway adds no CORS header to a Lambda proxy
  // answer: the refused page reads through lambdaProxy, with a simple GET (no preflight).
  it("refuses a page whose origin CORS_ORIGINS does not list: the client throws UnreachableError", async () => {
    const blog = client.createBlogClient({ baseUrl: api.baseUrl, token: writer });
    const { post } = await blog.createPost({ title: "Not for every site", content: "c" });
    const read = (page: Page, baseUrl: string) =>
      page.evaluate(
        async ({ baseUrl, id }) => {
          const { createBlogClient, UnreachableError } = (globalThis as unknown as PageGlobals)
            .blogClient;
          // One attempt: a refused answer is refused again on every retry.
          const blog = createBlogClient({ baseUrl, retry: { attempts: 1 } });
          try {
            const read = await blog.getPost(id);
            return { read: read.notModified ? undefined : read.post };
          } catch (error) {
            const { name, message, reason } = error as InstanceType<typeof UnreachableError>;
            return { unreachable: error instanceof UnreachableError, name, message, reason };
          }
        },
        { baseUrl, id: post.id },
      );

    // The stand-in passes an allowed origin's answer on, and the page reads it ...
    const allowed = await openPage(allowedOrigin);
    expect(await read(allowed.page, proxyUrl)).toEqual({ read: post });

    // ... but for another origin it has no Access-Control-Allow-Origin: the browser keeps it back.
    const refused = await openPage(refusedOrigin);
    const url = `${proxyUrl}/api/post/${post.id}`;
    expect(await read(refused.page, proxyUrl)).toEqual({
      unreachable: true,
      name: "UnreachableError",
      message: `GET ${url}: the service cannot be reached (Failed to fetch)`,
      reason: "Failed to fetch",
    });
    const answered = passed.filter(({ origin }) => origin === refusedOrigin);
    expect(answered).toHaveLength(1);
    expect(answered[0]?.statusCode).toBe(200);
    expect(answered[0]?.headers).not.toHaveProperty("access-control-allow-origin");
    expect(answered[0]?.headers).toMatchObject({ vary: "origin" });
    await expect
      .poll(() => refused.consoleLines)
      .toContain(
        `Access to fetch at '${url}' from origin '${refusedOrigin}' has been blocked by CORS ` +
          "policy: No 'Access-Control-Allow-Origin' header is present on the requested resource.",
      );

    // Why the stand-in: serverless-offline itself lets the refused origin read the post.
    expect(
      await read(refused.page, api.baseUrl),
      "serverless-offline no longer answers every origin: the refusal can be shown through it",
    ).toEqual({ read: post });
  });
});
