// One lint configuration for the whole repository: typescript-eslint's recommended rules,
// formatting left to Prettier, and the layers' boundaries (docs/design.md), which
// tests/unit/architecture.test.ts shows failing on a forbidden import.
import js from "@eslint/js";
import prettier from "eslint-config-prettier";
import globals from "globals";
import tseslint from "typescript-eslint";

/** A rule refusing every import whose path matches `regex`, with the message a reader sees. */
const refuse = (regex, message) => ({ regex, message });
const layer = (...patterns) => ({ "no-restricted-imports": ["error", { patterns }] });

/** The service never imports the client: client/ is for its callers (and for browsers). */
const notTheClient = refuse(
  "(^|/)client/",
  "client/ is for the API's callers; the service never imports it.",
);

/** The boundaries, folder by folder: what each layer may not import. */
export const boundaries = [
  {
    files: ["lib/posts/**"],
    rules: {
      ...layer(
        refuse(
          "^(?!\\./[^/]+$|node:)",
          "lib/posts/ holds the pure post rules: it imports only its own modules and node: built-ins.",
        ),
      ),
      "no-restricted-properties": [
        "error",
        {
          object: "process",
          property: "env",
          message:
            "lib/posts/ is pure: settings reach it as arguments (lib/app/config.ts reads them).",
        },
      ],
    },
  },
  {
    files: ["lib/http/**"],
    rules: layer(
      refuse(
        "^\\.\\./storage/",
        "lib/http/ depends on the PostRepository interface, never on lib/storage/.",
      ),
      refuse("^@aws-sdk/", "lib/http/ never calls AWS: storage is lib/storage/'s job."),
      refuse("^\\.\\./app/", "lib/app/ wires lib/; nothing in lib/ imports it."),
      notTheClient,
    ),
  },
  {
    files: ["lib/storage/**"],
    rules: layer(
      refuse(
        "^\\.\\./http/",
        "lib/storage/ knows nothing of HTTP: it throws domain errors (lib/posts/errors.ts).",
      ),
      refuse("^aws-lambda$", "lib/storage/ knows nothing of Lambda events."),
      refuse("^\\.\\./app/", "lib/app/ wires lib/; nothing in lib/ imports it."),
      notTheClient,
    ),
  },
  {
    files: ["lib/events/**"],
    rules: layer(
      refuse(
        "^\\.\\./(http|storage|app)/",
        "lib/events/ maps stream records with the post rules (lib/posts/) alone.",
      ),
      notTheClient,
    ),
  },
  {
    files: ["client/**"],
    rules: layer(
      refuse(
        "^(?!\\./[^/]+$|openapi-fetch$)",
        "client/ runs in browsers too: it imports only its own modules and openapi-fetch.",
      ),
    ),
  },
  {
    files: ["lib/app/**"],
    rules: layer(notTheClient),
  },
  {
    files: ["handlers/**"],
    rules: layer(
      refuse(
        "^(?!\\.\\./lib/app/[^/]+$|\\.\\./lib/http/routes\\.js$)",
        "handlers/ only wire: they import lib/app/ and the routes (lib/http/routes.ts).",
      ),
    ),
  },
];

export default tseslint.config(
  {
    ignores: [
      "dist/",
      ".serverless/",
      ".dynamodb/",
      ".runtime-node/",
      "coverage/",
      "node_modules/",
      ".stryker-tmp/",
      "reports/",
      // Generated from openapi.yaml by `npm run client`; tests/unit/client-types.test.ts checks it.
      "client/schema.d.ts",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: globals.node },
    rules: {
      "@typescript-eslint/consistent-type-imports": "error",
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_" },
      ],
      eqeqeq: ["error", "always"],
    },
  },
  // serverless.yml loads config/*.cjs with require(), so they are CommonJS and require each other.
  { files: ["**/*.cjs"], rules: { "@typescript-eslint/no-require-imports": "off" } },
  ...boundaries,
  prettier,
);
