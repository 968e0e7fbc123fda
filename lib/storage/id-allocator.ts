// Id allocation: hands out ids from blocks reserved on the shared counter, like a sequence cache,
// and skips the values client-chosen ids already hold.
import { type StorageCounts, addCount } from "./counts.js";

/** Reserves `size` ids on the counter and returns the last one of the block. */
type ReserveIds = (size: number, signal?: AbortSignal) => Promise<number>;

/** What a write returns when the id it was given already belongs to a post. */
export const ID_TAKEN = Symbol("id taken");

/**
 * Allocates ids one at a time from blocks of `blockSize`. With a block of 1 every id costs a
 * counter call; larger blocks trade gap-free ids for fewer calls: ids stay unique and increase
 * within one instance, but instances interleave and unused ids of a block are never issued.
 */
export class IdAllocator {
  private next = 0;
  private end = -1;
  private refill: Promise<void> | undefined;
  private refillSignal: AbortSignal | undefined;

  constructor(
    private readonly reserve: ReserveIds,
    private readonly blockSize: number,
  ) {}

  /** The next id of this instance's block, reserving a new block when it runs out. */
  async nextId(signal?: AbortSignal): Promise<number> {
    // Without blocks every id is its own reservation, so concurrent callers need not queue.
    if (this.blockSize === 1) return this.reserve(1, signal);
    while (this.next > this.end) {
      // Concurrent callers wait for one reservation instead of each making their own.
      if (!this.refill) {
        this.refillSignal = signal;
        this.refill = this.reserve(this.blockSize, signal)
          .then((last) => {
            this.next = last - this.blockSize + 1;
            this.end = last;
          })
          .finally(() => {
            this.refill = undefined;
          });
      }
      const shared = this.refillSignal;
      try {
        await this.refill;
      } catch (error) {
        // Another request's deadline cancelled the shared reservation: this one tries again,
        // unless its own deadline has passed too (the first caller's own failure ends here).
        if (!shared?.aborted || signal?.aborted) throw error;
      }
    }
    return this.next++;
  }

  /**
   * Runs `write` with counter-issued ids until one is free. After the n-th taken value in a row,
   * the next try skips 2^n values at once, so a run of k client-chosen ids costs O(log k) calls.
   */
  async withFreeId<T>(
    write: (id: number) => Promise<T | typeof ID_TAKEN>,
    signal?: AbortSignal,
    counts?: StorageCounts,
  ): Promise<T> {
    for (let collisions = 0; ; collisions++) {
      const id =
        collisions === 0
          ? await this.nextId(signal)
          : await this.reserve(2 ** Math.min(collisions, 30), signal);
      const written = await write(id);
      if (written !== ID_TAKEN) return written;
      addCount(counts, "IdsSkipped");
    }
  }
}
