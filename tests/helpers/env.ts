// Test harness: the environment handler modules read at import, pointed at the test DynamoDB Local.
import { inject } from "vitest";
import { LOCAL_CREDENTIALS } from "../../scripts/dynamodb-local.mjs";

process.env.AWS_ENDPOINT_URL_DYNAMODB = inject("dynamoEndpoint");
process.env.AWS_REGION = "us-east-1";
process.env.AWS_ACCESS_KEY_ID = LOCAL_CREDENTIALS.accessKeyId;
process.env.AWS_SECRET_ACCESS_KEY = LOCAL_CREDENTIALS.secretAccessKey;
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = "true";
process.env.TABLE_NAME ??= "default-handler-table";
process.env.LOG_LEVEL ??= "silent";
