// `npm run import` and `npm run export` end to end: the target is serverless-offline over
// DynamoDB Local; the source is a server of the test's own that shows posts as the specification
// does, in Europe/Paris, across both daylight saving changes.
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { type IncomingMessage, type ServerResponse, createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../scripts/lib/ports.mjs";
import { ZonedClock } from "../../scripts/lib/zoned-time.mjs";
import { type Offline, startOffline } from "../helpers/offline.js";
import { runScript } from "../helpers/run-script.js";
import { serve } from "./servers.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const SOURCE_ZONE = "Europe/Paris";
const paris = new ZonedClock(SOURCE_ZONE);
const utc = new ZonedClock("UTC");

/** A post as the tools read it: instants, or null. */
type Fixture = ReturnType<typeof hardPosts>[number];

/** Posts with every hard case, their ids starting at `base` with gaps. */
function hardPosts(base: number) {
  const at = (iso: string) => Date.parse(iso);
  const post = (offset: number, title: string, created: number | null, updated: number | null) => ({
    id: base + offset,
    title,
    content: `post ${base + offset}`,
    created_at: created,
    updated_at: updated,
  });
  return [
    // 100 characters, the last an emoji (two UTF-16 units): exactly the limit.
    post(1, `${"t".repeat(99)}🙂`, at("2024-01-15T11:00:00Z"), at("2024-01-15T11:00:00Z")),
    {
      ...post(3, 'quotes " and \\ backslashes', at("2024-02-01T08:00:00Z"), null),
      content: "line 1\nline 2\tç日本語 🎉",
    },
    { ...post(4, "several KB", null, null), content: "é long text ".repeat(600) },
    // Both sides of spring forward (31 March 2024, 02:00 → 03:00 in Paris).
    post(10, "before spring forward", at("2024-03-31T00:30:00Z"), at("2024-03-31T00:59:59Z")),
    post(11, "after spring forward", at("2024-03-31T01:30:00Z"), at("2024-03-31T01:30:00Z")),
    // Fall-back (27 October 2024, 03:00 → 02:00): 00:30Z shows as 02:30, as does 01:30Z.
    post(20, "in the repeated hour", at("2024-10-27T00:30:00Z"), at("2024-10-27T00:30:00Z")),
    post(21, "after fall-back", at("2024-10-27T02:30:00Z"), at("2024-11-02T09:15:00Z")),
    post(40, "null timestamps", null, null),
  ];
}

/** Plain posts for the larger runs. */
const manyPosts = (base: number, count: number): Fixture[] =>
  Array.from({ length: count }, (_, i) => ({
    id: base + 2 * i + 1,
    title: `post ${i}`,
    content: `content of post ${i}`,
    created_at: Date.parse("2024-06-01T10:00:00Z") + i * 1000,
    updated_at: Date.parse("2024-06-02T10:00:00Z") + i * 1000,
  }));

/** A post as a service in `clock`'s zone shows it: day-before-month local time. */
const shownBy = (clock: typeof paris, post: Fixture) => ({
  ...post,
  created_at: post.created_at === null ? null : clock.show(post.created_at),
  updated_at: post.updated_at === null ? null : clock.show(post.updated_at),
});

let offline: Offline;
let source: Awaited<ReturnType<typeof serve>> | undefined;
let sourceBase = "";
/** The source's post sets, each served at `${sourceBase}/<name>/api/post`. */
const sources = new Map<string, unknown[]>();
let workDir = "";

beforeAll(async () => {
  offline = await startOffline({ label: "import" });
  source = await serve(
    createServer((request, response) => {
      const [, name, ...rest] = (request.url ?? "").split("/");
      const posts = sources.get(name ?? "");
      if (request.method !== "GET" || !posts || rest.join("/") !== "api/post") {
        response.writeHead(404, { "content-type": "application/json" }).end('{"detail":"no"}');
        return;
      }
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(posts));
    }),
  );
  sourceBase = source.url;
  workDir = await mkdtemp(join(tmpdir(), "blog-import-"));
});

afterAll(async () => {
  await source?.close();
  await offline?.stop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

/** Serves `posts` as a source named `name`; returns its base URL. */
function serveSource(name: string, posts: Fixture[]) {
  sources.set(
    name,
    posts.map((post) => shownBy(paris, post)),
  );
  return `${sourceBase}/${name}`;
}

/** The environment of a run: no token in it. */
const withoutToken = () => ({ ...process.env, API_TOKEN: undefined });

/** A command of scripts/, at most 150 s: 300 posts take 10 s alone, minutes beside a suite. */
const runTool = (script: "import" | "export", args: string[]) =>
  runScript(`scripts/${script}.mjs`, args, withoutToken(), 150_000);
type Run = Awaited<ReturnType<typeof runTool>>;

/** A run's output, for the message of a failed expectation. */
const said = (run: Run) => `stdout:\n${run.stdout}\nstderr:\n${run.stderr}`;
/** Reads from `from`, shown in Europe/Paris. */
const inParis = (from: string) => ["--from", from, "--from-time-zone", SOURCE_ZONE];
/** Imports from `from` into `to`, by default the test's target. */
const importInto = (to: string, from: string, ...more: string[]) =>
  runTool("import", [...inParis(from), "--to", to, ...more]);
const importFrom = (from: string, ...more: string[]) => importInto(offline.baseUrl, from, ...more);

/** The target's posts, by id, as its list shows them. */
async function targetPosts() {
  const response = await fetch(`${offline.baseUrl}/api/post`);
  const list = (await response.json()) as Record<string, unknown>[];
  return new Map(list.map((post) => [post.id as number, post]));
}

/** Expects the target to hold exactly `posts` among the ids from `lowest` to `highest`. */
async function expectTargetHolds(posts: Fixture[], lowest: number, highest: number) {
  const there = await targetPosts();
  const inRange = [...there.keys()].filter((id) => id >= lowest && id <= highest);
  expect(inRange.sort((a, b) => a - b)).toEqual(posts.map((post) => post.id));
  // serverless-offline runs in UTC: the instants, shown there.
  for (const post of posts) expect(there.get(post.id)).toEqual(shownBy(utc, post));
}

describe("npm run import from a service", () => {
  const posts = hardPosts(1000);
  let from = "";
  beforeAll(() => {
    from = serveSource("full", posts);
  });

  // Every count exact, with the command's output in the message of any failure.
  it.each([
    ["copies every post with its id and instants, and verifies them", posts.length, 0],
    ["creates nothing when run again", 0, posts.length],
  ])("%s", async (_, created, there) => {
    const run = await importFrom(from);
    for (const line of [
      `created: ${created}\nalready there: ${there}\nconflicts: 0\nfailed: 0\n`,
      "ambiguous local times (the earlier instant taken): 1 (ids 1020)",
      `verified ${posts.length} of ${posts.length}`,
    ]) {
      expect(run.stdout, said(run)).toContain(line);
    }
    expect(run.stderr, said(run)).not.toMatch(/\n\s+at /); // no stack trace
    expect(run.code, said(run)).toBe(0);
    await expectTargetHolds(posts, 1000, 1999);
  });

  it("reports a post changed on the target as a conflict and leaves it alone", async () => {
    const changed = await fetch(`${offline.baseUrl}/api/post/1003`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ title: "changed on the target" }),
    });
    expect(changed.status).toBe(200);
    const run = await importFrom(from);
    expect(run.stdout).toContain("conflicts: 1\n");
    expect(run.stdout).toMatch(/conflict #1003: the target's post differs in title, updated_at/);
    expect(run.code).toBe(1);
    expect((await targetPosts()).get(1003)?.title).toBe("changed on the target");
  });

  it("export, then import of the file, gives the same posts as the direct import", async () => {
    const file = join(workDir, "export.json");
    const exported = await runTool("export", [...inParis(from), "--out", file]);
    expect(exported.code, said(exported)).toBe(0);
    expect(exported.stderr).toContain(`exported ${posts.length} posts`);
    const written = JSON.parse(await readFile(file, "utf8")) as {
      source: string;
      posts: Fixture[];
    };
    expect(written.source).toBe(from);
    // The earlier instant of the repeated hour, with its offset (more: isoWithOffset's unit test).
    const created = written.posts.find((post) => post.id === 1020)?.created_at;
    expect(created).toBe("2024-10-27T02:30:00+02:00");
    // Every post but the one changed above is found identical, instant for instant.
    const run = await runTool("import", ["--from", file, "--to", offline.baseUrl]);
    const counts = `created: 0\nalready there: ${posts.length - 1}\nconflicts: 1\n`;
    expect(run.stdout, said(run)).toContain(counts);
    expect(run.stdout).toContain(`verified ${posts.length - 1} of ${posts.length}`);
  });
});

describe("npm run import, interrupted and run again", () => {
  it("ends as one uninterrupted run would, with no post twice", async () => {
    const posts = manyPosts(2000, 120);
    const from = serveSource("killed", posts);
    const inRange = async () =>
      [...(await targetPosts()).keys()].filter((id) => id >= 2000 && id < 3000).length;
    const args = [...inParis(from), "--to", offline.baseUrl, "--concurrency", "2"];
    const child = spawn(process.execPath, ["scripts/import.mjs", ...args], {
      cwd: root,
      env: withoutToken(),
    });
    const exited = new Promise((resolve) => child.once("exit", (code) => resolve(code)));
    const deadline = Date.now() + 30_000;
    while ((await inRange()) < 20 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    child.kill("SIGKILL");
    expect(await exited).toBeNull(); // killed, not finished
    const partial = await inRange();
    expect(partial).toBeGreaterThan(0);
    expect(partial).toBeLessThan(posts.length);
    const rerun = await importFrom(from);
    expect(rerun.code, said(rerun)).toBe(0);
    expect(rerun.stdout).toContain(`verified ${posts.length} of ${posts.length}`);
    await expectTargetHolds(posts, 2000, 2999);
  }, 300_000); // two imports of 120 posts, on a machine busy with other work
});

/** A proxy in front of the target that answers some requests itself. */
async function proxy(intercept: (request: IncomingMessage, response: ServerResponse) => boolean) {
  return serve(
    createServer(async (request, response) => {
      if (intercept(request, response)) return;
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const answer = await fetch(`${offline.baseUrl}${request.url}`, {
        method: request.method,
        headers: { "content-type": "application/json" },
        body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
      });
      response.writeHead(answer.status, { "content-type": "application/json" });
      response.end(Buffer.from(await answer.arrayBuffer()));
    }),
  );
}

describe("npm run import, a polite client", () => {
  // How long the client waits on a Retry-After is its own unit test (tests/unit/client/).
  it("absorbs 429s with Retry-After, and says how many requests it retried", async () => {
    const posts = manyPosts(3000, 12);
    const from = serveSource("throttled", posts);
    let refusals = 0;
    const throttled = await proxy((request, response) => {
      // The first six creates are refused once each, asking for a one-second pause.
      if (request.method !== "POST" || refusals === 6) return false;
      refusals++;
      response.writeHead(429, { "retry-after": "1", "content-type": "application/json" });
      response.end('{"message":"Too Many Requests"}');
      return true;
    });
    try {
      const run = await importInto(throttled.url, from, "--concurrency", "3");
      expect(refusals).toBe(6);
      expect(run.stdout, said(run)).toContain(`created: ${posts.length}\n`);
      expect(run.stderr).toContain("(6 requests retried)");
      expect(run.code).toBe(0);
      await expectTargetHolds(posts, 3000, 3999);
    } finally {
      await throttled.close();
    }
  });

  it("reports a post the target refuses with its detail, and copies the rest", async () => {
    const posts = manyPosts(4000, 5);
    const invalid = { ...posts[2]!, title: "x".repeat(101) };
    const from = serveSource("invalid", [...posts.slice(0, 2), invalid, ...posts.slice(3)]);
    const run = await importFrom(from);
    expect(run.stdout).toContain("created: 4\n");
    // The refusal's wording is the post rules' (tests/unit/posts/post.test.ts).
    expect(run.stdout).toContain(`failed #${invalid.id}: 400 title`);
    expect(run.stdout).toContain("verified 4 of 5");
    expect(run.code).toBe(1);
    await expectTargetHolds([...posts.slice(0, 2), ...posts.slice(3)], 4000, 4999);
  });

  it("fails a local time the source's zone skips, with the reason, and copies the rest", async () => {
    // As the source shows them: 01:30 exists on 31 March in Paris, 02:30 does not.
    const shown = ["01:30:00", "02:30:00"].map((time, i) => ({
      ...{ id: 5001 + i, title: "t", content: "", updated_at: null },
      created_at: `2024-31-03 ${time}`,
    }));
    sources.set("skipped", shown);
    const run = await importFrom(`${sourceBase}/skipped`);
    expect(run.stdout).toContain("created: 1\n");
    expect(run.stdout).toContain(
      "failed #5002: created_at 2024-31-03 02:30:00 does not exist in Europe/Paris (its clocks skip that hour)",
    );
    expect(run.code).toBe(1);
    expect((await targetPosts()).has(5002)).toBe(false);
  });

  it("--dry-run says what it would do and writes nothing", async () => {
    const posts = manyPosts(6000, 4);
    const from = serveSource("dry", posts);
    const run = await importFrom(from, "--dry-run");
    expect(run.stdout).toContain("would create: 4\nalready there: 0\n");
    expect(run.stdout).toContain("dry run: nothing was written");
    expect(run.code).toBe(0);
    await expectTargetHolds([], 6000, 6999);
  });
});

describe("npm run import, bad input", () => {
  /** The one line that says why the run stopped (after any progress lines), with exit code 2. */
  const oneLine = (run: Run) => {
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).not.toMatch(/\n\s+at /);
    const lines = run.stderr.trim().split("\n");
    expect(lines.filter((line) => line.startsWith("import: "))).toHaveLength(1);
    return lines.at(-1);
  };

  // The source's other refusals, in-process: migration-source.test.ts.
  it("an unreachable target, after its retries", async () => {
    const from = serveSource("unreachable", manyPosts(7200, 1));
    const to = `http://127.0.0.1:${await freePort()}`;
    expect(oneLine(await importInto(to, from))).toMatch(
      /^import: The target http:\/\/127\.0\.0\.1:\d+ cannot be reached: ECONNREFUSED$/,
    );
  }, 40_000);

  it("a post lacking fields, before anything is written", async () => {
    const file = join(workDir, "lacking.json");
    const lacking = { id: 7001, title: "t", content: "c", created_at: null, updated_at: null };
    await writeFile(file, JSON.stringify([lacking, { id: 7002, title: "t" }]));
    const run = await runTool("import", ["--from", file, "--to", offline.baseUrl]);
    expect(oneLine(run)).toBe(
      `import: Post 2 of ${file} (id 7002) lacks content, created_at, updated_at`,
    );
    expect((await targetPosts()).has(7001)).toBe(false);
  });

  it("a source that answers no JSON, and a target that answers 401", async () => {
    const html = await serve(
      createServer((_request, response) => response.end("<html>hello</html>")),
    );
    const guarded = await proxy((_request, response) => {
      response.writeHead(401, { "content-type": "application/json" });
      response.end('{"message":"Unauthorized"}');
      return true;
    });
    try {
      expect(oneLine(await runTool("import", ["--from", html.url]))).toMatch(
        /and a body that is not JSON: is it a service of this API\?$/,
      );
      const from = serveSource("unauthorized", manyPosts(7100, 3));
      expect(oneLine(await importInto(guarded.url, from))).toMatch(
        /answered 401 to POST \/api\/post: it needs a token: pass --token T or set API_TOKEN$/,
      );
    } finally {
      await Promise.all([html.close(), guarded.close()]);
    }
  });

  it("--help names every flag, for import and export", async () => {
    for (const [script, flags] of [
      ["import", "--from --to --from-time-zone --to-time-zone --token --concurrency --dry-run"],
      ["export", "--from --from-time-zone --out --token"],
    ] as const) {
      const run = await runTool(script, ["--help"]);
      expect(run.code).toBe(0);
      for (const flag of flags.split(" ")) expect(run.stdout, `${script} ${flag}`).toContain(flag);
    }
  });
});
