// Cold-start floor: the cheapest Lambda handler, a module with nothing in it but an answer.
export const handler = async (/** @type {unknown} */ _event) => ({
  statusCode: 200,
  headers: { "content-type": "application/json" },
  body: "{}",
});
