// Test helper: a webhook subscriber on loopback that keeps every delivery it receives and answers
// as the test says (a status, or a status it holds back until the test lets it go).
import { type IncomingHttpHeaders, createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** One delivery as the subscriber saw it. */
export interface Delivery {
  headers: Record<string, string>;
  body: string;
  /** The body parsed. */
  event: { type: string; version: number; data: { id: number } & Record<string, unknown> };
  /** When it arrived (Date.now()). */
  at: number;
}

/** How the subscriber answers a delivery: a status, now or later. */
export type Answer = (delivery: Delivery) => number | Promise<number>;

const headersOf = (headers: IncomingHttpHeaders): Record<string, string> =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, String(value)]));

/** Starts a subscriber on 127.0.0.1; answers 204 unless `answer` is set. */
export async function startSubscriber() {
  const deliveries: Delivery[] = [];
  let answer: Answer = () => 204;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const [headers, event, at] = [headersOf(request.headers), JSON.parse(body), Date.now()];
      const delivery = { headers, body, event, at };
      deliveries.push(delivery);
      void Promise.resolve(answer(delivery)).then((status) => response.writeHead(status).end());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    deliveries,
    answerWith(next: Answer) {
      answer = next;
    },
    /** Waits until `done(deliveries)` holds, polling; fails after `timeoutMs`. */
    async waitFor(done: (all: Delivery[]) => boolean, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (!done(deliveries)) {
        if (Date.now() > deadline)
          throw new Error(`deliveries so far: ${deliveries.map((d) => d.body).join("\n")}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type Subscriber = Awaited<ReturnType<typeof startSubscriber>>;
