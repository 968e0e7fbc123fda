// Cold-start floor: a handler module with nothing in it but an answer.

/** Answers any event with an empty JSON object, as the cheapest possible Lambda handler would. */
export const handler = async (/** @type {unknown} */ _event) => ({
  statusCode: 200,
  headers: { "content-type": "application/json" },
  body: "{}",
});
