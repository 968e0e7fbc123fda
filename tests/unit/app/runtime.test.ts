// Unit: the composition root builds an instance's logger and DynamoDB repository from a
// configuration, without touching the network.
import { afterEach, describe, expect, it, vi } from "vitest";
import { buildRuntime } from "../../../lib/app/runtime.js";
import { DynamoPostRepository } from "../../../lib/storage/dynamo-repository.js";

const config = {
  tableName: "posts",
  idempotencyTableName: undefined,
  endpoint: "http://127.0.0.1:9",
  region: "us-east-1",
  logLevel: "info",
  serviceName: "blog-under-test",
  idBlockSize: 1,
} as const;

afterEach(() => vi.restoreAllMocks());

describe("buildRuntime", () => {
  it("wires the DynamoDB repository behind the interface", () => {
    expect(buildRuntime(config).posts).toBeInstanceOf(DynamoPostRepository);
  });

  it("wires a logger at the configured level and service name", () => {
    const write = vi.spyOn(process.stdout, "write").mockReturnValue(true);
    buildRuntime(config).logger.info("hello");
    buildRuntime({ ...config, logLevel: "silent" }).logger.error("quiet");
    expect(write).toHaveBeenCalledTimes(1);
    expect(JSON.parse(String(write.mock.calls[0]?.[0]))).toMatchObject({
      level: "INFO",
      message: "hello",
      service: "blog-under-test",
    });
  });
});
