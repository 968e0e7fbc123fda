// `npm run smoke` end to end: against the local stack (serverless-offline over DynamoDB Local) it
// passes and leaves no post behind; against a service broken on purpose (a proxy in front of the
// same stack) it fails and names the rule; with the JWT authorizer on, it needs a token.
import { spawn } from "node:child_process";
import { createServer, request } from "node:http";
import { fileURLToPath } from "node:url";
import { gunzipSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../scripts/lib/ports.mjs";
import { LEASE_WAIT_MS, leaseOffline, type Offline } from "../helpers/offline.js";
import { SHARED_CONFIGS, SHARED_ORIGIN } from "../helpers/offline-configs.js";
import { runScript } from "../helpers/run-script.js";
import { token as mintToken } from "../helpers/tokens.js";
import { serve } from "./servers.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
/** +05:45, so a check that ignored the zone, or got it by the hour, would show it. */
const ZONE = SHARED_CONFIGS.open.timeZone;

/** Runs the smoke; resolves with its exit code and output whatever the code. */
async function smoke(args: string[]) {
  const env = { ...process.env, API_TOKEN: undefined, TIME_ZONE: undefined };
  const { code, stdout, stderr } = await runScript("scripts/smoke.mjs", args, env, 90_000);
  return { code, output: stdout + stderr };
}

const storedPosts = async (api: Offline) =>
  (await api.table.items()).filter((item) => Number(item.id) > 0);

/** A proxy in front of `upstream` that changes each body with `rewrite`: one rule broken. */
function brokenProxy(upstream: string, rewrite: (body: string) => string) {
  const { hostname: host, port } = new URL(upstream);
  return serve(
    createServer((req, res) => {
      const { method, headers } = req;
      const forward = request({ host, port, path: req.url, method, headers }, (answer) => {
        const chunks: Buffer[] = [];
        answer.on("data", (chunk: Buffer) => chunks.push(chunk));
        answer.on("end", () => {
          const gzipped = answer.headers["content-encoding"] === "gzip";
          const raw = Buffer.concat(chunks);
          const changed = rewrite((gzipped ? gunzipSync(raw) : raw).toString("utf8"));
          const body = gzipped ? gzipSync(changed) : Buffer.from(changed);
          const sent = { ...answer.headers, "content-length": String(body.length) };
          res.writeHead(answer.statusCode ?? 502, sent).end(body);
        });
      });
      req.pipe(forward);
    }),
  );
}

/** A lease of a shared stack for the tests of a describe. */
function leased(config: "open" | "auth") {
  const stack = {} as { api: Offline };
  beforeAll(async () => {
    stack.api = await leaseOffline(config);
  }, LEASE_WAIT_MS);
  afterAll(() => stack.api?.stop());
  return stack;
}

describe("npm run smoke against the local stack", () => {
  const stack = leased("open");

  it("passes every step, one line each, and leaves no post behind", async () => {
    const { api } = stack;
    const { code, output } = await smoke(["--url", api.baseUrl, "--time-zone", ZONE]);
    expect(output).toMatch(/smoke: every step passed/);
    expect(code).toBe(0);
    const steps = output.split("\n").filter((line) => /^(ok|FAIL|skip) /.test(line));
    expect(steps).toHaveLength(14);
    expect(steps.filter((line) => line.startsWith("ok    "))).toHaveLength(13);
    expect(steps.at(-1)).toBe("skip  CORS: no --origin given");
    expect(output).toMatch(/^ok {4}auth: writes need no token here/m);
    expect(await storedPosts(api)).toEqual([]);
  });

  it.each([
    [
      "drops detail, naming the step and the rule",
      (body: string) => (body.startsWith("{") && "detail" in JSON.parse(body) ? "{}" : body),
      [
        /^FAIL {2}bad input: a create without content: detail undefined, not "Missing required fields: content"$/m,
        /^FAIL {2}get after delete: GET \/api\/post\/\d+: detail undefined, not "Blog post #\d+ not found"$/m,
        /^ok {4}create: /m,
        /smoke: 2 step\(s\) failed/,
      ],
    ],
    [
      "shows timestamps that are not the time in its zone",
      // Every `YYYY-DD-MM HH:MM:SS` moved three hours on: a service ignoring its zone.
      (body: string) =>
        body.replace(/("\w+_at":"\d{4}-\d{2}-\d{2} )(\d{2})/g, (_, head: string, hour: string) => {
          return head + String((Number(hour) + 3) % 24).padStart(2, "0");
        }),
      [
        /^FAIL {2}timestamps: created_at \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} is not the time now in Asia\/Kathmandu/m,
      ],
    ],
  ])("fails when the service %s, and still cleans up", async (_, rewrite, lines) => {
    const proxy = await brokenProxy(stack.api.baseUrl, rewrite);
    try {
      const { code, output } = await smoke(["--url", proxy.url, "--time-zone", ZONE]);
      expect(code, output).toBe(1);
      for (const line of lines) expect(output).toMatch(line);
    } finally {
      await proxy.close();
    }
    expect(await storedPosts(stack.api)).toEqual([]);
  });

  it("deletes the posts it made when interrupted, and exits 130", async () => {
    const child = spawn(process.execPath, ["scripts/smoke.mjs", "--url", stack.api.baseUrl], {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    let sent = false;
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
      // The update step waits for the next second: the run is mid-way when this lands.
      if (!sent && /^ok {4}create: /m.test(output)) sent = child.kill("SIGINT");
    });
    expect(await exited).toBe(130);
    expect(output).toMatch(/smoke: interrupted; the posts it made are deleted/);
    expect(output).not.toMatch(/every step passed/);
    expect(await storedPosts(stack.api)).toEqual([]);
  });

  it("says in one line when the service cannot be reached, and exits 1", async () => {
    const { code, output } = await smoke(["--url", `http://127.0.0.1:${await freePort()}`]);
    expect(code).toBe(1);
    expect(output).toMatch(
      /^FAIL {2}auth: POST http:\/\/127\.0\.0\.1:\d+\/api\/post: the service cannot be reached \(ECONNREFUSED\)$/m,
    );
    expect(output).toMatch(/^skip {2}the 13 steps left: the service did not answer$/m);
    expect(output).not.toMatch(/\n\s+at /);
  });

  it.each([
    [["--url", "ftp://x"], /--url must be an http\(s\) URL/],
    [["--time-zone", "Mars/Olympus"], /--time-zone must be an IANA time zone/],
    [["--origin", "blog.example"], /--origin must be an origin such as https:\/\/blog\.example/],
  ])("refuses %j with exit code 2", async (args, message) => {
    const { code, output } = await smoke(args);
    expect(code).toBe(2);
    expect(output).toMatch(message);
  });
});

describe("npm run smoke against a stack whose writes need a token", () => {
  const stack = leased("auth");

  it("reports 401 without a token and passes with one, CORS for a browser app included", async () => {
    const url = ["--url", stack.api.baseUrl];
    const without = await smoke(url);
    expect(without.code).toBe(1);
    expect(without.output).toMatch(
      /^FAIL {2}auth: writes need a token \(401 without one\): pass --token/m,
    );
    const withToken = await smoke([
      ...url,
      "--token",
      await mintToken(),
      "--origin",
      SHARED_ORIGIN,
    ]);
    expect(withToken.output).toMatch(/^ok {4}auth: a create without a token is refused with 401$/m);
    expect(withToken.output).toMatch(
      /^ok {4}CORS: https:\/\/blog\.example may send POST with authorization, content-type, idempotency-key/m,
    );
    expect(withToken.output).toMatch(/smoke: every step passed/);
    expect(withToken.code).toBe(0);
    expect(await storedPosts(stack.api)).toEqual([]);
  });
});
