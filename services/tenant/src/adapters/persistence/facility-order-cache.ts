/**
 * Sort orders of the facility table kept in memory, so a page anywhere in the unfiltered search is
 * found by position (a slice of ids) instead of by skipping `offset` index entries in PostgreSQL: a
 * random page of 10,000 facilities skipped 5,000 entries on average, most of the search's database
 * time, and the paging model (pageNumber, exact totalCount) leaves no room for a client-held keyset.
 *
 * An order is the ids of every facility (active, or all) in one sort, read with the version of the
 * `facility_count` row in the same snapshot; every statement that changes facility rows increments
 * that version in its own transaction (AddFacilitySearchIndexesAndCount). A page is then read with
 * the version beside it, again in one snapshot: the same version means the same committed table, so
 * the page and the total (the order's length) are exact; another version means a write came in
 * between, and the order is read again. Correct across instances, since the version lives in the
 * database; only read outside write transactions (an order read inside one could carry changes that
 * are then rolled back, under a version another transaction then commits).
 *
 * This module holds and bounds the orders; facility-search.ts reads them and the pages.
 */

export interface FacilityOrder {
  /** `facility_count.version` when the ids were read (a bigint as text). */
  readonly version: string;
  /** Every id of the order, ascending (a descending page reads it from the end). */
  readonly ids: readonly string[];
}

export interface FacilityOrderCacheOptions {
  /** Orders longer than this are not kept (the search then skips entries in PostgreSQL). Default 50,000 (~3 MB of ids). */
  readonly maxRows?: number;
  /** Orders kept at once, least recently used dropped first. Default 6. */
  readonly maxOrders?: number;
  /** How long an order found too long is not asked for again. Default 60 s. */
  readonly tooLongRecheckMs?: number;
}

interface Entry {
  readonly order: Promise<FacilityOrder | null>;
  /** The order once read. */
  read?: FacilityOrder;
  /** For a too-long order: when to ask again (ms since epoch). */
  retryAfter?: number;
}

export class FacilityOrderCache {
  readonly maxRows: number;
  private readonly maxOrders: number;
  private readonly tooLongRecheckMs: number;
  /** Map order is recency: a hit moves its entry to the end. */
  private readonly entries = new Map<string, Entry>();

  constructor(options: FacilityOrderCacheOptions = {}) {
    this.maxRows = options.maxRows ?? 50_000;
    this.maxOrders = options.maxOrders ?? 6;
    this.tooLongRecheckMs = options.tooLongRecheckMs ?? 60_000;
  }

  /**
   * The order of `key`, read by `read` when absent; concurrent callers share one read. Resolves to
   * null when the order is longer than `maxRows` (`read` decides and answers null).
   */
  get(key: string, read: () => Promise<FacilityOrder | null>): Promise<FacilityOrder | null> {
    const cached = this.entries.get(key);
    if (cached && (cached.retryAfter === undefined || cached.retryAfter > Date.now())) {
      this.entries.delete(key);
      this.entries.set(key, cached);
      return cached.order;
    }
    const entry: Entry = {
      order: read().then((order) => {
        if (order === null) entry.retryAfter = Date.now() + this.tooLongRecheckMs;
        else entry.read = order;
        return order;
      }, (error: unknown) => {
        if (this.entries.get(key) === entry) this.entries.delete(key);
        throw error;
      }),
    };
    this.entries.delete(key);
    this.entries.set(key, entry);
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.maxOrders) break;
      this.entries.delete(oldest);
    }
    return entry.order;
  }

  /** Forgets `order` of `key` (the table changed since it was read), unless a newer one replaced it already. */
  drop(key: string, order: FacilityOrder): void {
    if (this.entries.get(key)?.read === order) this.entries.delete(key);
  }
}
