// Test helper: `serverless package` into a folder, offline, the CloudFormation template it wrote,
// and what the tests read of that template.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import {
  cp,
  mkdir,
  mkdtemp,
  readFile,
  rename,
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
import { beforeAll, inject } from "vitest";
import { serverlessBin } from "./offline.js";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** A resource of the packaged template, its properties JSON read path by path. */
export interface Resource {
  Type: string;
  Properties: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
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

/** Every setting that shapes the template: a test starts from none, whatever the shell holds. */
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

/** A lock across processes on dist/, which a packaging copies and `npm start` rebuilds. */
const lockDir = join(
  tmpdir(),
  `blog-post-api-dist-${createHash("sha256").update(root).digest("hex").slice(0, 12)}.lock`,
);

/** Whether the lock's holder is gone (a process killed mid-package leaves its lock). */
async function lockAbandoned() {
  const holder = Number(await readFile(join(lockDir, "pid"), "utf8").catch(() => ""));
  if (!Number.isInteger(holder) || holder <= 0) {
    // Being taken, or its taker died before writing its pid.
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

/** Takes the lock (a folder `mkdir` makes atomically); answers the function that gives it back. */
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

/** A copy of the service (serverless.yml, dist/; the rest linked): osls stages in `.serverless`. */
async function serviceCopy(): Promise<string> {
  const copy = await mkdtemp(join(tmpdir(), "blog-post-service-"));
  await cp(join(root, "serverless.yml"), join(copy, "serverless.yml"));
  for (const name of ["config", "node_modules", "package.json"]) {
    await symlink(join(root, name), join(copy, name));
  }
  const release = await holdDistLock();
  await cp(join(root, "dist"), join(copy, "dist"), { recursive: true }).finally(release);
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

/** Configurations several files read: a run packages each once (packagedOnce). */
export const SHARED_SETTINGS = {
  /** Every optional resource and property on. */
  everyOption: {
    AUTH_USER_POOL: "true",
    ALARM_TOPIC_ARN: "arn:aws:sns:us-east-1:123456789012:blog-alarms",
    CORS_ORIGINS: "https://blog.example",
    ACCESS_LOGS: "true",
    TRACING: "true",
    WAF_RATE_LIMIT: "500",
    WEBHOOK_SUBSCRIBERS: "site=https://hooks.example.com/blog",
  },
  /** The stage's own user pool with a client for machines, and each limit set. */
  pooled: {
    AUTH_USER_POOL: "true",
    AUTH_MACHINE_CLIENT: "true",
    API_RATE_LIMIT: "25",
    API_BURST_LIMIT: "50",
    TABLE_MAX_READ_UNITS: "400",
    TABLE_MAX_WRITE_UNITS: "40",
    RESERVED_CONCURRENCY: "listPosts=20, createPost=5",
  },
  /** Alarms to a topic and webhooks, with the alarms' and the tables' settings. */
  alarmed: {
    ALARM_TOPIC_ARN: "arn:aws:sns:us-east-1:123456789012:ops",
    WEBHOOK_SUBSCRIBERS: "site=https://hooks.example.com/blog",
    LATENCY_ALARM_MS: "750",
    CAPACITY_ALARM_PERCENT: "70",
    TABLE_MAX_READ_UNITS: "400",
    TABLE_MAX_WRITE_UNITS: "40",
  },
};

/** The five API functions' resource ids, list first; the stage's other functions answer no route. */
export const API_FUNCTION_IDS = "ListPosts GetPost CreatePost UpdatePost DeletePost"
  .split(" ")
  .map((name) => `${name}LambdaFunction`);

/** A packaging: its update template, what the CLI printed and the folder holding its zips. */
export type Packaged = { template: Template; output: string; dir: string };

/**
 * Packages each configuration (exactly its settings) before the file's tests. A configuration is
 * packaged once per run, whichever file asks first: the others wait for its folder in the run's
 * package cache (global-setup.ts), which the run removes at its end.
 */
export function packagedBeforeAll<Name extends string>(
  configurations: Record<Name, Record<string, string>>,
): Record<Name, Packaged> {
  const packages = {} as Record<Name, Packaged>;
  beforeAll(async () => {
    const names = Object.keys(configurations) as Name[];
    const made = await Promise.all(names.map((name) => packagedOnce(configurations[name])));
    names.forEach((name, i) => (packages[name] = made[i]!));
  });
  return packages;
}

/** The packaging of `settings` in this run's cache: made here, or awaited from another file. */
async function packagedOnce(settings: Record<string, string>): Promise<Packaged> {
  const key = JSON.stringify(Object.entries(settings).sort());
  const name = createHash("sha256").update(key).digest("hex").slice(0, 16);
  const dir = join(inject("packageCache"), name);
  const outcome = join(dir, "outcome.json");
  const mine = await mkdir(dir).then(
    () => true,
    (error: NodeJS.ErrnoException) => {
      if (error.code === "EEXIST") return false;
      throw error;
    },
  );
  if (mine) {
    const args = ["package", "--package", dir, "--stage", "test"];
    const result = await runServerless(args, templateEnv(settings)).then(
      ({ stdout, stderr }) => ({ output: `${stdout}${stderr}` }),
      (error: Error) => ({ failure: error.message }),
    );
    await writeFile(`${outcome}.part`, JSON.stringify(result));
    await rename(`${outcome}.part`, outcome);
  }
  let text: string | undefined;
  while ((text = await readFile(outcome, "utf8").catch(() => undefined)) === undefined) {
    await setTimeout(200);
  }
  const { output, failure } = JSON.parse(text) as { output: string; failure?: string };
  if (failure !== undefined) throw new Error(failure);
  const file = join(dir, "cloudformation-template-update-stack.json");
  return { dir, output, template: JSON.parse(await readFile(file, "utf8")) as Template };
}

/** The resources of `template` of `type`, as [id, resource] pairs. */
export const ofType = (template: Template, type: string) =>
  Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);

/** The path of an API Gateway resource, from its PathPart and its parents'. */
export function resourcePath(template: Template, id: string): string {
  const { ParentId, PathPart } = template.Resources[id]?.Properties ?? {};
  return ParentId?.Ref ? `${resourcePath(template, ParentId.Ref)}/${PathPart}` : `/${PathPart}`;
}

/** Each method of the REST API (the preflights' OPTIONS aside) by `VERB /path`. */
export function methodsByRoute(template: Template): Record<string, Resource["Properties"]> {
  return Object.fromEntries(
    ofType(template, "AWS::ApiGateway::Method")
      .map(([, method]) => method.Properties)
      .filter((method) => method.HttpMethod !== "OPTIONS")
      .map((method) => [
        `${method.HttpMethod} ${resourcePath(template, method.ResourceId.Ref)}`,
        method,
      ]),
  );
}
