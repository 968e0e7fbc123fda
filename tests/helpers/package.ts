// Test helper: `serverless package` into a folder, offline, the CloudFormation template it wrote,
// and what the tests read of that template.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import {
  copyFile,
  cp,
  mkdir,
  mkdtemp,
  readFile,
  rm,
  stat,
  symlink,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll } from "vitest";
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
export const TEMPLATE_SETTINGS = `
  POSTS_TABLE IDEMPOTENCY_TABLE TIME_ZONE LOG_LEVEL ALARM_TOPIC_ARN CORS_ORIGINS
  AUTH_ISSUER_URL AUTH_AUDIENCE AUTH_WRITE_SCOPE AUTH_READS AUTH_USER_POOL AUTH_POOL_DOMAIN
  AUTH_MACHINE_CLIENT ALLOW_ANONYMOUS_WRITES API_RATE_LIMIT API_BURST_LIMIT
  TABLE_MAX_READ_UNITS TABLE_MAX_WRITE_UNITS RESERVED_CONCURRENCY LATENCY_ALARM_MS
  CAPACITY_ALARM_PERCENT WAF_RATE_LIMIT SPEND_LIMIT_USD ACCESS_LOGS TRACING LOG_RETENTION_DAYS
  WEBHOOK_SUBSCRIBERS
`
  .trim()
  .split(/\s+/);

/** This process's environment without the template settings, plus `settings`. */
export function templateEnv(settings: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of TEMPLATE_SETTINGS) delete env[name];
  return { ...env, ...settings };
}

/**
 * The built bundles (dist/) are read by a packaging and rewritten by `npm start`: each takes this
 * lock, across processes, only while it copies or builds them. It is a folder that `mkdir` makes
 * atomically; a lock whose process is gone is taken over.
 */
const lockDir = join(
  tmpdir(),
  `blog-post-api-dist-${createHash("sha256").update(root).digest("hex").slice(0, 12)}.lock`,
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
export async function holdDistLock(): Promise<() => Promise<void>> {
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
  const release = await holdDistLock();
  try {
    return await work();
  } finally {
    await release();
  }
}

/**
 * A copy of the service to package from. osls stages every package in the service's own
 * `.serverless` folder, whatever `--package` says, and empties it first: packagings from one
 * folder at once would take each other's files. Each runs in its own copy instead: serverless.yml
 * and the bundles copied, the rest linked.
 */
async function serviceCopy(): Promise<string> {
  const copy = await mkdtemp(join(tmpdir(), "blog-post-service-"));
  await copyFile(join(root, "serverless.yml"), join(copy, "serverless.yml"));
  for (const name of ["config", "node_modules", "package.json"]) {
    await symlink(join(root, name), join(copy, name));
  }
  await exclusively(() => cp(join(root, "dist"), join(copy, "dist"), { recursive: true }));
  return copy;
}

/** Runs the serverless CLI (osls) on the service; rejects with its output when it fails. */
export async function runServerless(args: string[], env: NodeJS.ProcessEnv) {
  const cwd = args[0] === "package" ? await serviceCopy() : root;
  try {
    return await promisify(execFile)(process.execPath, [serverlessBin, ...args], {
      cwd,
      env,
      timeout: 120_000,
    });
  } catch (error) {
    const { stdout = "", stderr = "" } = error as { stdout?: string; stderr?: string };
    throw new Error(`serverless ${args[0]} failed:\n${stdout}${stderr}`, { cause: error });
  } finally {
    if (cwd !== root) await rm(cwd, { recursive: true, force: true });
  }
}

/** Packages the service into `dir`; returns the update template and what the CLI printed. */
async function packageWithOutput(dir: string, env: NodeJS.ProcessEnv) {
  const { stdout, stderr } = await runServerless(
    ["package", "--package", dir, "--stage", "test"],
    env,
  );
  const template = JSON.parse(
    await readFile(join(dir, "cloudformation-template-update-stack.json"), "utf8"),
  ) as Template;
  return { template, output: `${stdout}${stderr}` };
}

/** The five API functions' resource ids, list first; the stage's other functions answer no route. */
export const API_FUNCTION_IDS = [
  "ListPosts",
  "GetPost",
  "CreatePost",
  "UpdatePost",
  "DeletePost",
].map((name) => `${name}LambdaFunction`);

/** A packaging: its update template, what the CLI printed and the folder holding its zips. */
export interface Packaged {
  template: Template;
  output: string;
  dir: string;
}

/**
 * Packages the service once per configuration (each with exactly its settings, none from the
 * shell) before the file's tests, all at once as each runs in its own copy of the service, and
 * removes the packages after them. The answer is filled in before the first test runs.
 */
export function packagedBeforeAll<Name extends string>(
  configurations: Record<Name, Record<string, string>>,
): Record<Name, Packaged> {
  const packages = {} as Record<Name, Packaged>;
  const dirs: string[] = [];
  beforeAll(async () => {
    const names = Object.keys(configurations) as Name[];
    await Promise.all(
      names.map(async (name) => {
        const dir = await mkdtemp(join(tmpdir(), "blog-post-package-"));
        dirs.push(dir);
        const packaged = await packageWithOutput(dir, templateEnv(configurations[name]));
        packages[name] = { dir, ...packaged };
      }),
    );
  });
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });
  return packages;
}

/** The resources of `template` of `type`, as [id, resource] pairs. */
export const ofType = (template: Template, type: string) =>
  Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);

/** The path of an API Gateway resource, from its PathPart and its parents'. */
export function resourcePath(template: Template, id: string): string {
  const resource = template.Resources[id];
  if (!resource) return "";
  const parent = resource.Properties.ParentId as { Ref?: string };
  const part = String(resource.Properties.PathPart);
  return parent.Ref ? `${resourcePath(template, parent.Ref)}/${part}` : `/${part}`;
}

/** Each method of the REST API (the preflights' OPTIONS aside) by `VERB /path`. */
export function methodsByRoute(template: Template): Record<string, Record<string, unknown>> {
  return Object.fromEntries(
    ofType(template, "AWS::ApiGateway::Method")
      .map(([, method]) => method.Properties)
      .filter((method) => method.HttpMethod !== "OPTIONS")
      .map((method) => {
        const { Ref } = method.ResourceId as { Ref: string };
        return [`${method.HttpMethod as string} ${resourcePath(template, Ref)}`, method];
      }),
  );
}
