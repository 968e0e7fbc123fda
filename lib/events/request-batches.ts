// Batch requests (PutEvents, SendMessageBatch): entries split into requests within the service's
// limits, sent one request after another, stopping at the first an entry of which was not taken.

/** One entry of a batch request, with the index of the stream record it hands on. */
export interface Outgoing<T> {
  /** The index, in the stream's batch, of the record this entry hands on. */
  at: number;
  entry: T;
  /** The entry's size as the service counts it against the request's limit. */
  bytes: number;
  /** Entries of one group (a post) never share a request, so a failure cannot reorder them. */
  group?: string;
}

/** What one request may hold: entries, and their sizes added up. */
export interface RequestLimits {
  maxEntries: number;
  maxBytes: number;
}

/** A request's answer: the indexes, within the request, of the entries it did not take. */
export type RequestSend<T> = (entries: T[]) => Promise<number[]>;

/**
 * The entries in order, in the fewest consecutive requests within the limits. An entry larger
 * than `maxBytes` goes alone (the service then says whether it takes it).
 */
export function requestBatches<T>(items: Outgoing<T>[], limits: RequestLimits): Outgoing<T>[][] {
  const requests: Outgoing<T>[][] = [];
  let current: Outgoing<T>[] = [];
  let bytes = 0;
  for (const item of items) {
    const full =
      current.length === limits.maxEntries ||
      bytes + item.bytes > limits.maxBytes ||
      (item.group !== undefined && current.some(({ group }) => group === item.group));
    if (current.length > 0 && full) {
      requests.push(current);
      [current, bytes] = [[], 0];
    }
    current.push(item);
    bytes += item.bytes;
  }
  if (current.length > 0) requests.push(current);
  return requests;
}

/**
 * Sends the requests in order and stops at the first that did not take every entry (a request
 * that throws took none, and `onError` hears why). Answers the record index of the first entry
 * not taken, or undefined when all were.
 */
export async function sendInOrder<T>(
  requests: Outgoing<T>[][],
  send: RequestSend<T>,
  onError: (error: unknown) => void,
): Promise<number | undefined> {
  for (const request of requests) {
    let refused: number[];
    try {
      refused = await send(request.map(({ entry }) => entry));
    } catch (error) {
      onError(error);
      refused = [0];
    }
    // An index the answer names but the request lacks counts as the request's first entry.
    if (refused.length > 0) return (request[Math.min(...refused)] ?? request[0])?.at;
  }
  return undefined;
}
