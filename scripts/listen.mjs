// `npm run listen`: a local webhook subscriber, checking signatures with client/webhooks.mjs.
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { createServer } from "node:http";
import { text } from "node:stream/consumers";
import { StopError, runWithFlags } from "./lib/cli.mjs";
import { verifyWebhook } from "../client/webhooks.mjs";

const usage = `Usage: npm run listen -- [--port 4000] [--secret whsec_…]
       npm run listen -- --new-secret

Listens on http://127.0.0.1:<port>/ for webhook deliveries, checks each one's signature and
prints its event on one line; a delivery that fails the check is answered 401 and printed as
refused. Start the API with the same secret to send it events:

  WEBHOOK_URL=http://127.0.0.1:4000/ WEBHOOK_SECRET=<secret> npm start

  --port N       the port to listen on (default 4000)
  --secret S     the subscriber's secret, whsec_<base64> (default: $WEBHOOK_SECRET)
  --new-secret   print a new random secret and exit
  -h, --help     this text`;

await runWithFlags({
  name: "listen",
  usage,
  flags: {
    port: { type: "string", default: "4000" },
    secret: { type: "string" },
    "new-secret": { type: "boolean" },
  },
  read: ({ port, secret = process.env.WEBHOOK_SECRET, "new-secret": newSecret }) => {
    if (!/^\d+$/.test(port) || Number(port) < 1 || Number(port) > 65535) {
      throw new StopError(`--port must be a port number, not ${port}`);
    }
    if (!newSecret && !secret?.startsWith("whsec_")) {
      throw new StopError("give the subscriber's secret: --secret whsec_… or WEBHOOK_SECRET");
    }
    return { port: Number(port), secret: String(secret), newSecret };
  },
  run: async ({ port, secret, newSecret }) => {
    if (newSecret) {
      console.log(`whsec_${randomBytes(32).toString("base64")}`);
      return 0;
    }
    const server = createServer(async (request, response) => {
      try {
        const event = await verifyWebhook(secret, request.headers, await text(request));
        const { timestamp, type, version, data } = event;
        console.log(`${timestamp} ${type} #${data.id} v${version} ${JSON.stringify(data)}`);
        response.writeHead(204).end();
      } catch (error) {
        const why = /** @type {Error} */ (error).message;
        console.log(`refused ${request.headers["webhook-id"] ?? "(no id)"}: ${why}`);
        response.writeHead(401).end();
      }
    });
    await once(server.listen(port, "127.0.0.1"), "listening").catch((error) => {
      throw new StopError(error.message);
    });
    console.log(`Listening on http://127.0.0.1:${port}/ (Ctrl-C stops)`);
    await once(process, "SIGINT");
    server.close();
    return 0;
  },
});
