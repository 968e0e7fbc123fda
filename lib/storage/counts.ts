// What storage did for one request, as the counts its metrics report: storage names them (the
// edge reports every count it is given, as a Count metric; docs/operating.md lists them).

/** The counts storage keeps for a request; a count is present only where its path was taken. */
export type StorageCounts = Partial<
  Record<
    /** A list answered from the instance's memory, patched with the posts written since, or by a Scan. */
    | "ListFromMemory"
    | "ListPatched"
    | "ListScanned"
    /** DynamoDB's consumed capacity, summed over every call the request made. */
    | "ReadUnits"
    | "WriteUnits"
    /** Counter-issued ids found already taken by a client-chosen id, and skipped. */
    | "IdsSkipped"
    /** A create answered with the stored outcome of an earlier one with its Idempotency-Key. */
    | "IdempotentReplays",
    number
  >
>;

/** Adds `n` to one of the counts, when the caller asked for them. */
export function addCount(
  counts: StorageCounts | undefined,
  name: keyof StorageCounts,
  n = 1,
): void {
  if (counts) counts[name] = (counts[name] ?? 0) + n;
}
