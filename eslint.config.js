// One lint configuration for the whole repository: typescript-eslint's recommended rules,
// with formatting left to Prettier.
import js from "@eslint/js";
import prettier from "eslint-config-prettier";
import globals from "globals";
import tseslint from "typescript-eslint";

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
  prettier,
);
