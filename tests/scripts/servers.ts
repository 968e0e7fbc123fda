// Loopback servers of the tests' own (stand-ins for the services the commands call, proxies), and
// the environment of a shell with no AWS settings.
import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** Starts `server` on a free loopback port: its base URL, and how to close it. */
export async function serve(server: Server) {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A server that answers each request, its body read whole, with `answer`. */
export const serveBodies = (
  answer: (request: IncomingMessage, body: string, response: ServerResponse) => void,
) =>
  serve(
    createServer(async (request, response) => {
      let body = "";
      for await (const chunk of request) body += String(chunk);
      answer(request, body, response);
    }),
  );

/** The environment of a shell with no AWS settings at all, plus `settings`. */
export const withoutAws = (settings: NodeJS.ProcessEnv): NodeJS.ProcessEnv => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("AWS_"))),
  ...settings,
});
