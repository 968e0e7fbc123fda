// Names the stack's pieces share: the service (serverless.yml's `service`, which the functions
// also log as `service`) and the functions' logical ids in the packaged template.
const SERVICE = "blog-post-api";

/** Each function's resource id in the template, as osls names it from serverless.yml's key. */
const FUNCTION_IDS = {
  listPosts: "ListPostsLambdaFunction",
  getPost: "GetPostLambdaFunction",
  createPost: "CreatePostLambdaFunction",
  updatePost: "UpdatePostLambdaFunction",
  deletePost: "DeletePostLambdaFunction",
};

/** Each function's route, as API Gateway names it. */
const ROUTES = {
  listPosts: "GET /api/post",
  getPost: "GET /api/post/{post_pk}",
  createPost: "POST /api/post",
  updatePost: "PUT /api/post/{post_pk}",
  deletePost: "DELETE /api/post/{post_pk}",
};

/** The service's own metrics (lib/http/metrics.ts writes them; the packaging tests compare). */
const METRICS_NAMESPACE = "BlogPostApi";

/** The REST API's name in a stage (serverless.yml's `provider.apiName`): its metrics' ApiName. */
const apiName = (stage) => `${SERVICE}-${stage}`;

module.exports = { SERVICE, FUNCTION_IDS, ROUTES, METRICS_NAMESPACE, apiName };
