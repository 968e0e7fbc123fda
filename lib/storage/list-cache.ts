// The list cache: the whole list kept per instance, answered again while the change marker has
// not moved, and patched with the posts the marker says changed, so that a list after k writes
// reads k posts, not the table.
import type { Post } from "../posts/post.js";
import type { ListBody } from "../posts/repository.js";
import { type StorageCounts, addCount } from "./counts.js";
import { type ChangeMarker, type ShardState, changesSince } from "./change-marker.js";
import { scanPages } from "./list-body.js";
import { type ListPage, listBody, patchPages } from "./list-pages.js";
import type { PostsTable } from "./posts-table.js";

/**
 * How long a kept list is patched before it is built again by a Scan. The backstop for what no
 * marker records: a write whose post landed but whose marker ADD failed (it answered 500), or an
 * item edited outside the service. 30 minutes lets 10 warm instances rescan a 100 MB table with
 * 14% of the default read ceiling (docs/performance.md, What a list costs).
 */
export const LIST_CACHE_MAX_AGE_MS = 30 * 60_000;
/**
 * How long a write may stay counted by its shard but not recorded in its slot before a list
 * stops waiting for it and Scans. Its post was stored before the count, and the slot is set one
 * call later; a slot still empty after this long belongs to a write that failed halfway.
 */
export const UNRECORDED_WRITE_GRACE_MS = 15_000;

/** A kept list: its pages, its answer, and where on each shard it has every write applied. */
interface KeptList {
  pages: ListPage[];
  body: ListBody;
  positions: number[];
  scannedAt: number;
}

/** The list of one instance, answered from memory, patched, or scanned. */
export class ListCache {
  private kept: KeptList | undefined;
  /** When this instance first saw each write counted but not yet recorded, by shard and number. */
  private unrecorded = new Map<string, number>();

  private readonly maxAgeMs: number;
  private readonly graceMs: number;
  private readonly clock: () => number;

  constructor(
    private readonly table: PostsTable,
    private readonly marker: ChangeMarker,
    options: {
      maxAgeMs?: number | undefined;
      graceMs?: number | undefined;
      clock?: () => number;
    } = {},
  ) {
    this.maxAgeMs = options.maxAgeMs ?? LIST_CACHE_MAX_AGE_MS;
    this.graceMs = options.graceMs ?? UNRECORDED_WRITE_GRACE_MS;
    this.clock = options.clock ?? Date.now;
  }

  /**
   * The list now. One consistent marker read; then the kept list as it is when no write since
   * is recorded, patched with the posts of those that are, or a Scan when there is no kept list,
   * it is older than the max age, its instance is too far behind the rings, or a write has gone
   * unrecorded past the grace.
   */
  async read(signal?: AbortSignal, counts?: StorageCounts): Promise<ListBody> {
    const shards = await this.marker.read(signal);
    const kept = this.kept;
    const now = this.clock();
    const plan = kept && now - kept.scannedAt < this.maxAgeMs && this.plan(kept, shards, now);
    if (!kept || !plan) return this.scan(shards, now, signal, counts);
    if (plan.ids.length === 0) {
      addCount(counts, "ListFromMemory");
      return kept.body;
    }
    addCount(counts, "ListPatched");
    const changed = new Map<number, Post | undefined>(plan.ids.map((id) => [id, undefined]));
    await this.table.getMany(plan.ids, (post) => changed.set(post.id, post), signal);
    const pages = patchPages(kept.pages, changed);
    const body = listBody(pages);
    this.kept = { pages, body, positions: plan.through, scannedAt: kept.scannedAt };
    return body;
  }

  /**
   * The posts to read again, and the positions the list is at once they are applied; false when
   * the rings cannot say (too far behind, or a write unrecorded past the grace).
   */
  private plan(kept: KeptList, shards: ShardState[], now: number) {
    const ids = new Set<number>();
    const through: number[] = [];
    const unrecorded = new Map<string, number>();
    for (const [shard, state] of shards.entries()) {
      const changes = changesSince(state, kept.positions[shard] ?? 0);
      if (!changes) return false;
      for (const sequence of changes.missing) {
        const key = `${shard}:${sequence}`;
        const since = this.unrecorded.get(key) ?? now;
        if (now - since >= this.graceMs) return false;
        unrecorded.set(key, since);
      }
      for (const id of changes.ids) ids.add(id);
      through.push(changes.through);
    }
    this.unrecorded = unrecorded;
    return { ids: [...ids], through };
  }

  /**
   * A Scan, kept at the counts read before it: a write counted by then had stored its post
   * first, so the Scan sees it; a later one is read again by the next list's patch.
   */
  private async scan(
    shards: ShardState[],
    now: number,
    signal?: AbortSignal,
    counts?: StorageCounts,
  ): Promise<ListBody> {
    addCount(counts, "ListScanned");
    // The kept list goes first: the old copy and the new one are never held at once.
    this.kept = undefined;
    this.unrecorded.clear();
    const pages = await scanPages(this.table, signal);
    const body = listBody(pages);
    this.kept = { pages, body, positions: shards.map((s) => s.count), scannedAt: now };
    return body;
  }
}
