// Black-box HTTP tests: CORS when CORS_ORIGINS is set, through serverless-offline.
// serverless-offline reflects any Origin back, where API Gateway answers only the listed ones,
// so the refusal of other origins is checked on the packaged template instead.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LEASE_WAIT_MS, leaseOffline, type Offline } from "../helpers/offline.js";
import { SHARED_ORIGIN as ORIGIN } from "../helpers/offline-configs.js";

let api: Offline;

beforeAll(async () => {
  api = await leaseOffline("open");
}, LEASE_WAIT_MS);
afterAll(async () => {
  await api?.stop();
});

describe("with CORS_ORIGINS set", () => {
  it("answers a preflight from an allowed origin with the allowed methods and headers", async () => {
    const response = await fetch(`${api.baseUrl}/api/post`, {
      method: "OPTIONS",
      headers: {
        origin: ORIGIN,
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization,content-type,idempotency-key",
      },
    });
    expect(response.status).toBeLessThan(300);
    expect(response.headers.get("access-control-allow-origin")).toBe(ORIGIN);
    expect(response.headers.get("access-control-allow-methods")).toContain("POST");
    const allowed = response.headers.get("access-control-allow-headers")?.toLowerCase() ?? "";
    // Authorization: a browser app that writes sends its bearer token.
    for (const header of ["authorization", "content-type", "idempotency-key"]) {
      expect(allowed).toContain(header);
    }
  });

  it("marks real responses for an allowed origin and exposes Location", async () => {
    const response = await fetch(`${api.baseUrl}/api/post`, {
      method: "POST",
      headers: { origin: ORIGIN, "content-type": "application/json" },
      body: JSON.stringify({ title: "t", content: "c" }),
    });
    expect(response.status).toBe(201);
    expect(response.headers.get("access-control-allow-origin")).toBe(ORIGIN);
    expect(response.headers.get("access-control-expose-headers")).toContain("Location");
  });
});
