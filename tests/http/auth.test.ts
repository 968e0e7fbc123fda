// Black-box HTTP tests: the optional JWT authorizer through serverless-offline, with tokens
// minted here. Locally the authorizer checks issuer, audience, expiry and scope, not the
// signature (API Gateway checks that too); the packaged template is checked in tests/packaging.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertMatchesContract } from "../helpers/contract.js";
import { LEASE_WAIT_MS, leaseOffline, startOffline, type Offline } from "../helpers/offline.js";
import { AUDIENCE, ISSUER, token } from "../helpers/tokens.js";

/** Sends a request with an optional bearer token; the answer must be one openapi.yaml documents. */
async function call(api: Offline, method: string, path: string, bearer?: string, body?: unknown) {
  const headers: Record<string, string> = {};
  if (bearer !== undefined) headers.authorization = `Bearer ${bearer}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(`${api.baseUrl}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const [{ status, headers: seen }, text] = [response, await response.text()];
  // A refusal's body on AWS is checked in tests/packaging/rest-stage.test.ts; offline's is its own.
  if (![401, 403].includes(status))
    assertMatchesContract(method, path, { status, headers: seen, text });
  return { status, body: text === "" ? undefined : (JSON.parse(text) as unknown) };
}

describe("writes need a token with the write scope (AUTH_ISSUER_URL, AUTH_AUDIENCE, AUTH_WRITE_SCOPE)", () => {
  let api: Offline;
  beforeAll(async () => {
    api = await leaseOffline("auth");
  }, LEASE_WAIT_MS);
  afterAll(async () => {
    await api?.stop();
  });

  const post = { title: "Guarded", content: "Only with a token" };

  // Each claim check is proved rule by rule in tests/unit/http/authorizer.test.ts.
  it("refuses every write route without a token or with a refused one (401), or without the write scope (403)", async () => {
    const expired = await token({}, Math.floor(Date.now() / 1000) - 60);
    const readOnly = await token({ scope: "openid profile" });
    const writes = [
      ["POST", "/api/post", post],
      ["PUT", "/api/post/1", { title: "x" }],
      ["DELETE", "/api/post/1"],
    ];
    for (const [method, path, body] of writes as [string, string, unknown?][]) {
      expect((await call(api, method, path, undefined, body)).status).toBe(401);
      expect((await call(api, method, path, expired, body)).status).toBe(401);
      expect((await call(api, method, path, readOnly, body)).status).toBe(403);
    }
    expect(await api.table.posts()).toEqual([]);
  });

  it("lets a good token create, update and delete; reads stay open; no log shows the token", async () => {
    const good = await token({ sub: "someone-whose-token-must-not-leak" });
    const made = await call(api, "POST", "/api/post", good, post);
    expect(made).toMatchObject({ status: 201, body: { title: "Guarded" } });
    const id = (made.body as { id: number }).id;
    expect(await call(api, "GET", "/api/post")).toMatchObject({ status: 200, body: [{ id }] });
    expect((await call(api, "GET", `/api/post/${id}`)).status).toBe(200);
    const changed = await call(api, "PUT", `/api/post/${id}`, good, { title: "Changed" });
    expect(changed).toMatchObject({ status: 200, body: { id, title: "Changed" } });
    expect((await call(api, "DELETE", `/api/post/${id}`, good)).status).toBe(204);
    expect(await api.table.posts()).toEqual([]);
    // Each request logged with Powertools Logger's keys, as Lambda's context gives them.
    await expect.poll(() => api.output()).toContain('"route":"POST /api/post"');
    const output = api.output();
    expect(api.logLines().findLast((line) => line.route === "POST /api/post")).toMatchObject({
      level: "INFO",
      message: "request",
      status: 201,
      service: "blog-post-api",
      cold_start: expect.any(Boolean),
      function_name: "blog-post-api-test-createPost",
      function_memory_size: 1024,
      function_request_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      api_request_id: expect.any(String),
      method: "POST",
    });
    // Nothing of the token or the Authorization header.
    expect(output).not.toContain(good.split(".")[1]);
    expect(output).not.toContain("someone-whose-token-must-not-leak");
    expect(output.toLowerCase()).not.toContain("bearer ");
  });
});

describe("with AUTH_READS=true, reads need a token too", () => {
  let api: Offline;
  beforeAll(async () => {
    api = await startOffline({
      label: "http-auth-reads",
      env: { AUTH_ISSUER_URL: ISSUER, AUTH_AUDIENCE: AUDIENCE, AUTH_READS: "true" },
    });
  });
  afterAll(async () => {
    await api?.stop();
  });

  it("answers 401 to a GET without a token and 200 with one; writes need no scope", async () => {
    expect((await call(api, "GET", "/api/post")).status).toBe(401);
    expect((await call(api, "GET", "/api/post/1")).status).toBe(401);
    const good = await token({ scope: "openid" });
    expect(await call(api, "GET", "/api/post", good)).toEqual({ status: 200, body: [] });
    expect((await call(api, "GET", "/api/post/1", good)).status).toBe(404);
    // AUTH_WRITE_SCOPE is unset.
    expect((await call(api, "POST", "/api/post", good, { title: "t", content: "c" })).status).toBe(
      201,
    );
  });
});
