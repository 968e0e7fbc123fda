// Names the template and the functions must agree on: the namespace of the metrics the functions
// write and the dashboard graphs, and the headers CORS lets a browser app send (the gateway's
// preflight answer) and read (the functions' answers). config/ requires this file and Node
// strips its types without rewriting import paths, so it keeps to erasable syntax and imports
// nothing.

/** The CloudWatch namespace of the service's own metrics. */
export const METRICS_NAMESPACE = "BlogPostApi";

/** Request headers a browser app may send: its bearer token among them. */
export const CORS_ALLOWED_HEADERS = [
  "Authorization",
  "Content-Type",
  "Idempotency-Key",
  "If-None-Match",
] as const;

/** Answer headers a browser app may read besides the simple ones. */
export const CORS_EXPOSED_HEADERS = ["Location", "ETag", "Retry-After"] as const;
