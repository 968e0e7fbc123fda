// Unit: the layers' boundaries in eslint.config.js refuse each forbidden import (linted as if in
// that folder) and pass the allowed ones, so a rule that refused everything would fail too.
import { fileURLToPath } from "node:url";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const eslint = new ESLint({ cwd: root });

/** The boundary rules' messages for `code` linted as the file at `path`. */
async function refusals(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(`${code}\nexport {};\n`, { filePath: path });
  return (result?.messages ?? [])
    .filter((m) => m.ruleId === "no-restricted-imports" || m.ruleId === "no-restricted-properties")
    .map((m) => m.message);
}

describe("each boundary refuses an import that crosses it", () => {
  it.each([
    ["lib/posts/x.ts", 'import "@aws-sdk/client-dynamodb";', "pure post rules"],
    ["lib/posts/x.ts", 'import type { Context } from "aws-lambda";', "pure post rules"],
    ["lib/posts/x.ts", 'import "../storage/sender.js";', "pure post rules"],
    ["lib/posts/x.ts", 'import "../http/logger.js";', "pure post rules"],
    ["lib/posts/x.ts", 'import "../app/config.js";', "pure post rules"],
    ["lib/posts/x.ts", "export const level = process.env.LOG_LEVEL;", "settings reach it"],
    ["lib/http/x.ts", 'import "../storage/dynamo-repository.js";', "never on lib/storage/"],
    ["lib/http/x.ts", 'import type { T } from "../storage/posts-table.js";', "lib/storage/"],
    ["lib/http/x.ts", 'import "@aws-sdk/lib-dynamodb";', "never calls AWS"],
    ["lib/http/x.ts", 'import "../app/runtime.js";', "nothing in lib/ imports it"],
    ["lib/storage/x.ts", 'import "../http/errors.js";', "knows nothing of HTTP"],
    ["lib/storage/x.ts", 'import type { Context } from "aws-lambda";', "Lambda events"],
    ["lib/storage/x.ts", 'import "../app/config.js";', "nothing in lib/ imports it"],
    ["handlers/x.ts", 'import "../lib/storage/dynamo-repository.js";', "handlers/ only wire"],
    ["handlers/x.ts", 'import "../lib/http/handler.js";', "handlers/ only wire"],
    ["handlers/x.ts", 'import "../lib/posts/post.js";', "handlers/ only wire"],
    ["handlers/x.ts", 'import "@aws-sdk/client-dynamodb";', "handlers/ only wire"],
    ["lib/http/x.ts", 'import "../../client/index.mjs";', "the service never imports it"],
    ["lib/storage/x.ts", 'import "../../client/errors.mjs";', "the service never imports it"],
    ["lib/app/x.ts", 'import "../../client/index.mjs";', "the service never imports it"],
    ["client/x.mjs", 'import "node:crypto";', "runs in browsers too"],
    ["lib/events/x.ts", 'import "../storage/posts-table.js";', "with the post rules"],
    ["lib/events/x.ts", 'import "../http/logger.js";', "with the post rules"],
    ["lib/events/x.ts", 'import "../app/webhooks.js";', "with the post rules"],
    ["client/x.mjs", 'import "../lib/posts/post.js";', "runs in browsers too"],
  ])("%s: %s", async (path, code, reason) => {
    expect(await refusals(path, code)).toEqual([expect.stringContaining(reason)]);
  });
});

describe("the imports each layer needs pass", () => {
  it.each([
    ["lib/posts/x.ts", 'import "./post.js";\nimport { createHash } from "node:crypto";'],
    ["lib/http/x.ts", 'import "../posts/post.js";\nimport "./response.js";\nimport "aws-lambda";'],
    ["lib/storage/x.ts", 'import "../posts/post.js";\nimport "@aws-sdk/lib-dynamodb";'],
    ["lib/app/x.ts", 'import "../storage/client.js";\nimport "../http/logger.js";'],
    [
      "lib/events/x.ts",
      'import "../posts/post.js";\nimport "./signature.js";\nimport "node:crypto";',
    ],
    ["handlers/x.ts", 'import "../lib/app/config.js";\nimport "../lib/http/routes.js";'],
    ["client/x.mjs", 'import "./errors.mjs";\nimport createClient from "openapi-fetch";'],
    ["tests/x.ts", 'import "../lib/storage/sender.js";\nimport "@aws-sdk/lib-dynamodb";'],
  ])("%s: %s", async (path, code) => {
    expect(await refusals(path, code)).toEqual([]);
  });
});
