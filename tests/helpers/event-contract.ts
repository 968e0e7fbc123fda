// Test helper: the events' contract (asyncapi.yaml) parsed by @asyncapi/parser, and a check of a
// delivered event (body and webhook headers) against the message its type names.
import { fileURLToPath } from "node:url";
import { Parser, fromFile } from "@asyncapi/parser";
import { Ajv2020 } from "ajv/dist/2020.js";

const contractFile = fileURLToPath(new URL("../../asyncapi.yaml", import.meta.url));

/** Problems the checker found in a delivery; empty when it matches the contract. */
export type ContractCheck = (
  event: { type?: unknown },
  headers?: Record<string, string>,
) => string[];

/** Parses the contract (refusing any diagnostic above a hint) and returns the checker. */
export async function loadEventContract(file = contractFile): Promise<ContractCheck> {
  const { document, diagnostics } = await fromFile(new Parser(), file).parse();
  const serious = diagnostics.filter((diagnostic) => diagnostic.severity < 2);
  if (!document || serious.length > 0) {
    throw new Error(`${file}: ${serious.map((d) => d.message).join("; ")}`);
  }
  // Formats are not checked (as for openapi.yaml): the timestamp's pattern says it exactly.
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  const all = document.allMessages().all();
  const messages = new Map(
    all.map((message) => {
      const headers = message.headers()?.json();
      const payload = ajv.compile(message.payload()?.json() ?? {});
      return [message.name(), { payload, headers: headers && ajv.compile(headers) }] as const;
    }),
  );
  return (event, headers) => {
    const message = messages.get(String(event.type));
    if (!message) return [`no message named ${String(event.type)}`];
    const problems: string[] = [];
    if (!message.payload(event)) problems.push(ajv.errorsText(message.payload.errors));
    if (headers && message.headers && !message.headers(headers)) {
      problems.push(ajv.errorsText(message.headers.errors));
    }
    return problems;
  };
}
