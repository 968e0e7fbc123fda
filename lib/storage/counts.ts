// What storage did for one request, as the counts its metrics report: storage names them (the
// edge reports every count it is given, as a Count metric; docs/operating.md lists them).

/**
 * The counts storage keeps for a request, each reported as a Count metric:
 * - a list answered from the instance's memory, patched with the posts written since, or by a Scan;
 * - DynamoDB's consumed capacity, summed over every call the request made;
 * - counter-issued ids found already taken by a client-chosen id, and skipped;
 * - a create answered with the stored outcome of an earlier one with its Idempotency-Key.
 */
export const STORAGE_COUNT_NAMES = [
  "ListFromMemory",
  "ListPatched",
  "ListScanned",
  "ReadUnits",
  "WriteUnits",
  "IdsSkipped",
  "IdempotentReplays",
] as const;

/** A request's counts; a count is present only where its path was taken. */
export type StorageCounts = Partial<Record<(typeof STORAGE_COUNT_NAMES)[number], number>>;

/** Adds `n` to one of the counts, when the caller asked for them. */
export function addCount(
  counts: StorageCounts | undefined,
  name: keyof StorageCounts,
  n = 1,
): void {
  if (counts) counts[name] = (counts[name] ?? 0) + n;
}
