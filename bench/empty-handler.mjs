// Cold-start floor: the cheapest Lambda handler, a module with nothing in it but an answer.
export const handler = async () => ({ statusCode: 200, body: "{}" });
