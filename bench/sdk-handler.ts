// Cold-start floor with the SDK: a handler that makes the get handler's storage call through the
// floor (bundled like the handlers), to tell the SDK's share of a cold start from ours.
import { createFloor } from "./floor.js";

const floor = createFloor({
  endpoint: process.env.AWS_ENDPOINT_URL_DYNAMODB ?? "",
  region: process.env.AWS_REGION ?? "us-east-1",
});

/** Reads post 1 and answers with it. */
export const handler = async (_event: unknown) => {
  const item = await floor.get(process.env.TABLE_NAME ?? "", 1);
  return { statusCode: item ? 200 : 404, body: JSON.stringify(item ?? {}) };
};
