// The per-client limit: an AWS WAF web ACL on the REST stage whose one rule blocks a client
// address that sends more than WAF_RATE_LIMIT requests a minute, answering 429 in the service's
// shape. Off unless asked for (WAF_RATE_LIMIT=500, say): a web ACL and its rule are billed by the
// month whether or not a request arrives (docs/security.md: what the stage has without it).
// No managed rule group: their SQL-injection and XSS rules would refuse blog posts that quote
// HTML or SQL, which posts about code do.

/** The window WAF counts requests over, in seconds (60 is the shortest it offers). */
const WINDOW_SECONDS = 60;
/** The fewest requests a rate-based rule accepts as its limit. */
const MIN_RATE_LIMIT = 10;

/** The limit a minute, or undefined when WAF_RATE_LIMIT is unset or off; throws on anything else. */
function readRateLimit(env = process.env) {
  const raw = (env.WAF_RATE_LIMIT ?? "").trim();
  if (raw === "" || raw === "off") return undefined;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < MIN_RATE_LIMIT) {
    throw new Error(
      `WAF_RATE_LIMIT must be off or a whole number of requests a minute from ${MIN_RATE_LIMIT} up, not ${JSON.stringify(raw)}`,
    );
  }
  return value;
}

/** The web ACL and its association with the stage, or nothing when the limit is off. */
function wafResources({ stackName, stageArn, dependsOn }, env = process.env) {
  const limit = readRateLimit(env);
  if (limit === undefined) return {};
  const visibility = (name) => ({
    SampledRequestsEnabled: true,
    CloudWatchMetricsEnabled: true,
    MetricName: name,
  });
  return {
    WebAcl: {
      Type: "AWS::WAFv2::WebACL",
      Properties: {
        Name: `${stackName}-per-client-limit`,
        Scope: "REGIONAL",
        Description: `At most ${limit} requests a minute from one client address`,
        DefaultAction: { Allow: {} },
        VisibilityConfig: visibility(`${stackName}-web-acl`),
        CustomResponseBodies: {
          tooManyRequests: {
            ContentType: "APPLICATION_JSON",
            Content: JSON.stringify({
              detail: `Too many requests from this address: at most ${limit} a minute; retry in a minute`,
            }),
          },
        },
        Rules: [
          {
            Name: "per-client-rate",
            Priority: 0,
            Statement: {
              RateBasedStatement: {
                Limit: limit,
                EvaluationWindowSec: WINDOW_SECONDS,
                AggregateKeyType: "IP",
              },
            },
            Action: {
              Block: {
                CustomResponse: {
                  ResponseCode: 429,
                  CustomResponseBodyKey: "tooManyRequests",
                  ResponseHeaders: [{ Name: "Retry-After", Value: String(WINDOW_SECONDS) }],
                },
              },
            },
            VisibilityConfig: visibility(`${stackName}-per-client-rate`),
          },
        ],
      },
    },
    WebAclAssociation: {
      Type: "AWS::WAFv2::WebACLAssociation",
      // The stage must exist before a web ACL can be associated with it.
      DependsOn: dependsOn,
      Properties: { ResourceArn: stageArn, WebACLArn: { "Fn::GetAtt": ["WebAcl", "Arn"] } },
    },
  };
}

module.exports = { WINDOW_SECONDS, readRateLimit, wafResources };
