// Test helper: the five handlers built over one repository, as lib/app/runtime.ts wires them.
import { vi } from "vitest";
import type { LogFields, Logger } from "../../lib/http/logger.js";
import { createPost, deletePost, getPost, listPosts, updatePost } from "../../lib/http/routes.js";
import type { PostStorage } from "../../lib/posts/repository.js";

/** A logger that drops every line, for tests that do not read the log. */
export const quietLogger: Logger = { info: () => {}, error: () => {} };

/** A logger that keeps every line it is given, for tests that read the log. */
export function recordingLogger() {
  const lines: { level: string; message: string; fields?: LogFields }[] = [];
  const logger: Logger = {
    info: (message, fields) => lines.push({ level: "info", message, fields }),
    error: (message, fields) => lines.push({ level: "error", message, fields }),
  };
  return { logger, lines };
}

/** Every handler over `posts`, keyed by operation. */
export function handlersOver(
  posts: PostStorage,
  log: Logger = quietLogger,
  corsOrigins?: readonly string[],
) {
  return {
    list: listPosts(posts, log, corsOrigins),
    get: getPost(posts, log, corsOrigins),
    create: createPost(posts, log, corsOrigins),
    update: updatePost(posts, log, corsOrigins),
    delete: deletePost(posts, log, corsOrigins),
  };
}

export type Handlers = ReturnType<typeof handlersOver>;

/** Every line written to standard output while `run` runs, parsed: the log lines as Lambda sees them. */
export async function linesWrittenBy(run: () => unknown): Promise<Record<string, unknown>[]> {
  const written: string[] = [];
  const spy = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
    written.push(String(chunk));
    return true;
  });
  try {
    await run();
  } finally {
    spy.mockRestore();
  }
  return written.map((line) => JSON.parse(line) as Record<string, unknown>);
}
