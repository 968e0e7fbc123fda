// Local webhook delivery: each post's events sent one after another to the subscriber, signed,
// retried on the schedule AWS uses (lib/events/retry-schedule.ts), dead-lettered to a file.
import { appendFile } from "node:fs/promises";

/** @typedef {import("../../lib/events/index.js")} EventsCode */
/** @typedef {import("../../lib/events/index.js").PostEvent} PostEvent */

const sleep = (/** @type {number} */ ms, /** @type {AbortSignal} */ signal) =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve(undefined);
    });
  });

/**
 * A delivery queue per post: an event of a post leaves only once the one before it was delivered
 * or given up, while posts do not wait for each other.
 * @param {{
 *   code: EventsCode,
 *   subscriber: { url: string, secrets: string[] },
 *   deadLetterFile: string,
 *   log: (line: string) => void,
 * }} options
 */
export function createLocalDelivery({ code, subscriber, deadLetterFile, log }) {
  /** @type {Map<number, Promise<boolean>>} */
  const queues = new Map();
  const stopping = new AbortController();
  let gone = false;

  /**
   * Sends until delivered, gone, or out of retries (then into the dead-letter file); false when
   * stopped first, so the event is still to be delivered.
   */
  const deliver = async (/** @type {PostEvent} */ event) => {
    const id = code.eventIdOf(event);
    const body = JSON.stringify(event);
    for (let attempt = 1; !stopping.signal.aborted; attempt++) {
      if (gone) return true;
      const outcome = await code.sendWebhook(subscriber, id, body, { local: true });
      const what = `${event.type} #${event.data.id} v${event.version} (${id})`;
      if (outcome.result === "delivered") {
        log(`event ${what}: delivered`);
        return true;
      }
      if (outcome.result === "gone") {
        gone = true;
        log(`event ${what}: the subscriber answered 410 Gone; no more deliveries to it`);
        return true;
      }
      const delay = code.retryDelayMs(attempt);
      if (delay === undefined) {
        await appendFile(deadLetterFile, `${JSON.stringify({ id, event })}\n`);
        log(`event ${what}: ${outcome.detail}; dead-lettered to ${deadLetterFile}`);
        return true;
      }
      log(`event ${what}: ${outcome.detail}; try ${attempt + 1} in ${delay / 1000} s`);
      await sleep(delay, stopping.signal);
    }
    return false;
  };

  return {
    /**
     * Queues an event behind its post's earlier ones; resolves true once it is done with, false
     * when delivery stopped first.
     * @param {PostEvent} event
     */
    enqueue(event) {
      const postId = event.data.id;
      const before = queues.get(postId) ?? Promise.resolve(true);
      const done = before.then((earlierDone) => (earlierDone ? deliver(event) : false));
      queues.set(postId, done);
      void done.then(() => {
        if (queues.get(postId) === done) queues.delete(postId);
      });
      return done;
    },
    /** Stops retrying; what is not delivered yet is read again from the stream next time. */
    stop() {
      stopping.abort();
    },
  };
}
