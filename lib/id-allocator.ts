// Storage helper: hands out ids from blocks reserved on the shared counter, like a sequence cache.

/** Reserves `size` ids on the counter and returns the last one of the block. */
export type ReserveIds = (size: number) => Promise<number>;

/**
 * Allocates ids one at a time from blocks of `blockSize`. With a block of 1 every id costs a
 * counter call; larger blocks trade gap-free ids for fewer calls: ids stay unique and increase
 * within one instance, but instances interleave and unused ids of a block are never issued.
 */
export class IdAllocator {
  private next = 0;
  private end = -1;
  private refill: Promise<void> | undefined;

  constructor(
    private readonly reserve: ReserveIds,
    private readonly blockSize: number,
  ) {}

  /** The next id of this instance's block, reserving a new block when it runs out. */
  async nextId(): Promise<number> {
    // Without blocks every id is its own reservation, so concurrent callers need not queue.
    if (this.blockSize === 1) return this.reserve(1);
    while (this.next > this.end) {
      // Concurrent callers wait for one reservation instead of each making their own.
      this.refill ??= this.reserve(this.blockSize)
        .then((last) => {
          this.next = last - this.blockSize + 1;
          this.end = last;
        })
        .finally(() => {
          this.refill = undefined;
        });
      await this.refill;
    }
    return this.next++;
  }
}
