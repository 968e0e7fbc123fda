// Names the stack's pieces share: the service (serverless.yml's `service`, which the functions
// also log as `service`), the five API functions, their routes and logical ids in the packaged
// template, and the metrics' namespace (lib/shared/names.ts, which the functions write with).
const { METRICS_NAMESPACE } = require("../lib/shared/names.ts");

const SERVICE = "blog-post-api";

/**
 * The API functions, by their key in serverless.yml, and the route each answers as API Gateway
 * names it (the functions log it as `route`): the one list of them in config/.
 */
const ROUTES = {
  listPosts: "GET /api/post",
  getPost: "GET /api/post/{post_pk}",
  createPost: "POST /api/post",
  updatePost: "PUT /api/post/{post_pk}",
  deletePost: "DELETE /api/post/{post_pk}",
};

/** The API functions' keys in serverless.yml, list first. */
const API_FUNCTIONS = Object.keys(ROUTES);

/** Each API function's resource id in the template, as osls names it from its key. */
const FUNCTION_IDS = Object.fromEntries(
  API_FUNCTIONS.map((key) => [key, `${key[0].toUpperCase()}${key.slice(1)}LambdaFunction`]),
);

/** The REST API's name in a stage (serverless.yml's `provider.apiName`): its metrics' ApiName. */
const apiName = (stage) => `${SERVICE}-${stage}`;

module.exports = { SERVICE, API_FUNCTIONS, FUNCTION_IDS, ROUTES, METRICS_NAMESPACE, apiName };
