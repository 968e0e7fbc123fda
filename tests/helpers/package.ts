// Test helper: `serverless package` into a folder, offline, and the CloudFormation template it wrote.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { serverlessBin } from "./offline.js";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** A resource of the packaged template. */
export interface Resource {
  Type: string;
  Properties: Record<string, unknown>;
  Condition?: string;
  DependsOn?: string | string[];
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
}

/** The packaged template, as far as the tests read it. */
export interface Template {
  Resources: Record<string, Resource>;
  Conditions?: Record<string, unknown>;
  Outputs?: Record<string, { Value: unknown }>;
}

/**
 * Every setting that shapes the template. A test starts from none of them, so a developer's own
 * shell settings cannot change what it sees.
 */
export const TEMPLATE_SETTINGS = [
  "POSTS_TABLE",
  "IDEMPOTENCY_TABLE",
  "TIME_ZONE",
  "LOG_LEVEL",
  "ALARM_TOPIC_ARN",
  "CORS_ORIGINS",
  "AUTH_ISSUER_URL",
  "AUTH_AUDIENCE",
  "AUTH_WRITE_SCOPE",
  "AUTH_READS",
  "AUTH_USER_POOL",
  "AUTH_POOL_DOMAIN",
  "ALLOW_ANONYMOUS_WRITES",
  "API_RATE_LIMIT",
  "API_BURST_LIMIT",
  "TABLE_MAX_READ_UNITS",
  "TABLE_MAX_WRITE_UNITS",
  "RESERVED_CONCURRENCY",
  "LATENCY_ALARM_MS",
  "CAPACITY_ALARM_PERCENT",
  "WAF_RATE_LIMIT",
  "ACCESS_LOGS",
  "TRACING",
  "LOG_RETENTION_DAYS",
  "WEBHOOK_SUBSCRIBERS",
];

/** This process's environment without the template settings, plus `settings`. */
export function templateEnv(settings: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of TEMPLATE_SETTINGS) delete env[name];
  return { ...env, ...settings };
}

/**
 * osls stages every package in the repository's own `.serverless` folder, whatever `--package`
 * says, and empties it first, so two packagings at once (test files run in parallel) take each
 * other's files. They run one at a time, across processes, under a lock folder that
 * `mkdir` makes atomically; a lock whose process is gone is taken over.
 */
const lockDir = join(
  tmpdir(),
  `blog-post-api-serverless-${createHash("sha256").update(root).digest("hex").slice(0, 12)}.lock`,
);

/** Whether the lock's holder is gone (a test process killed mid-package leaves its lock). */
async function lockAbandoned() {
  const holder = Number(await readFile(join(lockDir, "pid"), "utf8").catch(() => ""));
  if (!Number.isInteger(holder) || holder <= 0) {
    // Being taken, or its taker died before writing its pid: taken over after 10 s.
    const made = await stat(lockDir).then((info) => info.mtimeMs, Date.now);
    return Date.now() - made > 10_000;
  }
  try {
    process.kill(holder, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}

/**
 * Takes the lock, and answers the function that gives it back. A test that runs `npm start`
 * holds it too: npm start builds into dist/, which a packaging reads.
 */
export async function holdPackagingLock(): Promise<() => Promise<void>> {
  for (;;) {
    try {
      await mkdir(lockDir);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      if (await lockAbandoned()) await rm(lockDir, { recursive: true, force: true });
      else await setTimeout(100);
    }
  }
  await writeFile(join(lockDir, "pid"), String(process.pid));
  return () => rm(lockDir, { recursive: true, force: true });
}

/** Runs `work` holding the lock. */
async function exclusively<T>(work: () => Promise<T>): Promise<T> {
  const release = await holdPackagingLock();
  try {
    return await work();
  } finally {
    await release();
  }
}

/** Runs the serverless CLI (osls) in the repository; rejects with its output when it fails. */
export async function runServerless(args: string[], env: NodeJS.ProcessEnv) {
  try {
    const run = () =>
      promisify(execFile)(process.execPath, [serverlessBin, ...args], {
        cwd: root,
        env,
        timeout: 120_000,
      });
    return await (args[0] === "package" ? exclusively(run) : run());
  } catch (error) {
    const { stdout = "", stderr = "" } = error as { stdout?: string; stderr?: string };
    throw new Error(`serverless ${args[0]} failed:\n${stdout}${stderr}`, { cause: error });
  }
}

/** Packages the service into `dir` with the given environment; returns the update template. */
export async function packageInto(dir: string, env: NodeJS.ProcessEnv): Promise<Template> {
  return (await packageWithOutput(dir, env)).template;
}

/** Packages the service into `dir`; returns the update template and what the CLI printed. */
export async function packageWithOutput(dir: string, env: NodeJS.ProcessEnv) {
  const { stdout, stderr } = await runServerless(
    ["package", "--package", dir, "--stage", "test"],
    env,
  );
  const template = JSON.parse(
    await readFile(join(dir, "cloudformation-template-update-stack.json"), "utf8"),
  ) as Template;
  return { template, output: `${stdout}${stderr}` };
}
