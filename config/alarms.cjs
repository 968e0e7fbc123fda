// CloudWatch alarm metrics that would otherwise repeat one block per function. Read by serverless.yml.
const FUNCTIONS = ["ListPosts", "GetPost", "CreatePost", "UpdatePost", "DeletePost"];

/** One metric per function (not returned) plus their sum (the alarm's value). */
function perFunctionSum(metricName) {
  return [
    { Id: "total", Expression: "SUM(METRICS())", ReturnData: true },
    ...FUNCTIONS.map((name) => ({
      Id: name.charAt(0).toLowerCase() + name.slice(1),
      ReturnData: false,
      MetricStat: {
        Metric: {
          Namespace: "AWS/Lambda",
          MetricName: metricName,
          Dimensions: [{ Name: "FunctionName", Value: { Ref: `${name}LambdaFunction` } }],
        },
        Period: 60,
        Stat: "Sum",
      },
    })),
  ];
}

module.exports = { lambdaErrors: () => perFunctionSum("Errors") };
