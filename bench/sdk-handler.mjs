// Cold-start floor with the SDK: a handler that makes the get handler's DynamoDB call straight
// through the SDK (bundled like the handlers), to tell the SDK's share of a cold start from ours.
import { createDirect } from "./sdk-direct.mjs";

const direct = createDirect({
  endpoint: process.env.AWS_ENDPOINT_URL_DYNAMODB ?? "",
  region: process.env.AWS_REGION ?? "us-east-1",
});
const table = process.env.TABLE_NAME ?? "";

/** Reads post 1 and answers with it. */
export const handler = async (/** @type {unknown} */ _event) => {
  const item = await direct.get(table, 1);
  return { statusCode: item ? 200 : 404, body: JSON.stringify(item ?? {}) };
};
