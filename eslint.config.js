// One lint configuration for the whole repository: typescript-eslint's recommended rules,
// formatting left to Prettier, and the layers' boundaries (docs/design.md), which
// tests/tools/architecture.test.ts shows failing on a forbidden import.
import js from "@eslint/js";
import prettier from "eslint-config-prettier";
import globals from "globals";
import tseslint from "typescript-eslint";

const NOT_THE_CLIENT = {
  "(^|/)client/": "client/ is for the API's callers; the service never imports it.",
};
const NOT_THE_WIRING = { "^\\.\\./app/": "lib/app/ wires lib/; nothing in lib/ imports it." };
/** For a module config/*.cjs requires at packaging: Node strips its types but rewrites no import. */
const REQUIRED_BY_CONFIG = {
  "^(?!node:)":
    "config/*.cjs requires this module, and Node rewrites no import path of a .ts file it loads: it imports only node: built-ins.",
};

/**
 * What each folder may not import: an import path matching a pattern is refused with its message.
 * A pattern `^(?!…)` names the only imports a folder may make.
 * @type {Record<string, Record<string, string>>}
 */
const FORBIDDEN = {
  "lib/posts/**": {
    "^(?!\\./[^/]+$|node:)":
      "lib/posts/ holds the pure post rules: it imports only its own modules and node: built-ins.",
  },
  "lib/http/**": {
    "^\\.\\./storage/": "lib/http/ depends on the PostRepository interface, never on lib/storage/.",
    "^@aws-sdk/": "lib/http/ never calls AWS: storage is lib/storage/'s job.",
    ...NOT_THE_WIRING,
    ...NOT_THE_CLIENT,
  },
  "lib/storage/**": {
    "^\\.\\./http/":
      "lib/storage/ knows nothing of HTTP: it throws domain errors (lib/posts/errors.ts).",
    "^aws-lambda$": "lib/storage/ knows nothing of Lambda events.",
    ...NOT_THE_WIRING,
    ...NOT_THE_CLIENT,
  },
  "lib/events/**": {
    "^\\.\\./(http|storage|app)/":
      "lib/events/ maps stream records with the post rules (lib/posts/), apart from the API's layers.",
    ...NOT_THE_CLIENT,
  },
  // What config/ and lib/ both read, written once: the settings' parsers and the shared names.
  "lib/shared/**": REQUIRED_BY_CONFIG,
  // Later than lib/events/**, so these two take this stricter rule in its place.
  "lib/events/address.ts": REQUIRED_BY_CONFIG,
  "lib/events/retry-schedule.ts": REQUIRED_BY_CONFIG,
  "lib/spend/**": {
    "^(?!\\./[^/]+$|node:|\\.\\./\\.\\./config/prices\\.json$)":
      "lib/spend/ prices and meters a stage's use: it imports only its own modules, node: built-ins and config/prices.json.",
  },
  "lib/app/**": NOT_THE_CLIENT,
  "client/**": {
    "^(?!\\./[^/]+$|openapi-fetch$)":
      "client/ runs in browsers too: it imports only its own modules and openapi-fetch.",
  },
  "handlers/**": {
    "^(?!\\.\\./lib/app/[^/]+$|\\.\\./lib/http/routes\\.js$)":
      "handlers/ only wire: they import lib/app/ and the routes (lib/http/routes.ts).",
  },
};

/** The boundaries as lint rules, folder by folder; lib/posts/ may not read the environment either. */
export const boundaries = [
  ...Object.entries(FORBIDDEN).map(([folder, refused]) => ({
    files: [folder],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: Object.entries(refused).map(([regex, message]) => ({ regex, message })) },
      ],
    },
  })),
  {
    files: ["lib/posts/**"],
    rules: {
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
      // Generated from openapi.yaml by `npm run client`; tests/tools/client-types.test.ts checks it.
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
