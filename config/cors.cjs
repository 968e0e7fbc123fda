// CORS for the HTTP API, from CORS_ORIGINS (comma-separated origins, or *). Unset: no CORS.
module.exports.cors = () => {
  const origins = (process.env.CORS_ORIGINS ?? "")
    .split(",")
    .map((origin) => origin.trim())
    .filter(Boolean);
  if (origins.length === 0) return false;
  return {
    allowedOrigins: origins,
    allowedMethods: ["GET", "POST", "PUT", "DELETE", "OPTIONS"],
    // Authorization: a browser app sends its bearer token when writes need one.
    allowedHeaders: ["Authorization", "Content-Type", "Idempotency-Key"],
    exposedResponseHeaders: ["Location"],
    maxAge: 600,
  };
};
