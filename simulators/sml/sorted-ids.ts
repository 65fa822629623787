// One SMP's participant ids, kept sorted so that a List page is a slice: single changes splice into the sorted array
// (a memmove, microseconds at 100,000 ids); bulk changes drop it and the next read sorts once.
export class SortedIds {
  private readonly members = new Set<string>();
  private sorted: string[] | undefined = [];

  get size(): number {
    return this.members.size;
  }

  /** `lazy`: part of a bulk change, so the sorted array is rebuilt on the next read instead of spliced now. */
  add(id: string, lazy = false): void {
    if (this.members.has(id)) return;
    this.members.add(id);
    if (lazy) this.sorted = undefined;
    else this.sorted?.splice(this.lowerBound(this.sorted, id), 0, id);
  }

  delete(id: string, lazy = false): void {
    if (!this.members.delete(id)) return;
    if (lazy) this.sorted = undefined;
    else if (this.sorted) this.sorted.splice(this.lowerBound(this.sorted, id), 1);
  }

  /** `count` ids from `start`, in the order of the default string sort. */
  slice(start: number, count: number): string[] {
    return this.ordered().slice(start, start + count);
  }

  all(): string[] {
    return [...this.ordered()];
  }

  private ordered(): string[] {
    return (this.sorted ??= [...this.members].sort());
  }

  private lowerBound(arr: string[], id: string): number {
    let lo = 0;
    let hi = arr.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (arr[mid]! < id) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
