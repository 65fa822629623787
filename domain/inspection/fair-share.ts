// How the inspection pool is shared: between workspaces first, then between the registrations of each, so that
// one workspace, or one registration, cannot hold the pool while others wait.
/** jobs one registration may have in the pool, waiting or running (a card's two sides at once) */
export const PER_OWNER = 2;

/** Whose file it is: a registration (its entry) of a workspace. */
export interface Owner {
  workspace: string;
  registration: string;
}

/** The pool's room when a job asks in: its children and queue, how many wait, and whether a child is free. */
export interface Room {
  size: number;
  queue: number;
  waiting: number;
  free: boolean;
}

/**
 * Whether `owner` may put one more job in the pool, whose jobs (waiting or being checked) belong to `owners`:
 * - a registration has at most PER_OWNER jobs in the pool;
 * - a workspace at most its share of the pool (children and queue): half of it alone, a third beside one other
 *   workspace, and so on — room is always left for one more workspace;
 * - a workspace with jobs in the pool cannot take the queue's last PER_OWNER places: a workspace with none finds
 *   room for its first file even while others flood.
 */
export function admits(owners: Owner[], owner: Owner, room: Room): boolean {
  const mine = owners.filter((o) => o.workspace === owner.workspace);
  if (mine.filter((o) => o.registration === owner.registration).length >= PER_OWNER) return false;
  if (mine.length === 0) return true;
  if (!room.free && room.waiting >= room.queue - PER_OWNER) return false;
  const others = new Set(owners.map((o) => o.workspace)).size - 1;
  const share = Math.max(PER_OWNER, Math.floor((room.size + room.queue) / (others + 2)));
  return mine.length < share;
}

/** Who is served next: the workspace served least recently, and within it the registration served least recently. */
export class ServiceOrder {
  /** when each workspace, and each registration, with files in the pool last had one taken by a child */
  private servedAt = new Map<string, number>();

  /** Takes the next job out of `waiting` (first in the queue among equals; jobs without an owner first). */
  takeNext<T extends { owner?: Owner }>(waiting: T[]): T | undefined {
    let best = -1;
    let bestAt: [number, number] = [Infinity, Infinity];
    waiting.forEach((p, i) => {
      const at: [number, number] = p.owner
        ? [this.servedAt.get(workspaceKey(p.owner)) ?? -1, this.servedAt.get(registrationKey(p.owner)) ?? -1]
        : [-1, -1];
      if (at[0] < bestAt[0] || (at[0] === bestAt[0] && at[1] < bestAt[1])) [best, bestAt] = [i, at];
    });
    const next = best === -1 ? undefined : waiting.splice(best, 1)[0];
    if (next?.owner) {
      const now = performance.now();
      this.servedAt.set(workspaceKey(next.owner), now);
      this.servedAt.set(registrationKey(next.owner), now);
    }
    return next;
  }

  /** An owner with no more files in the pool (`owners`) is forgotten: when it comes back, it is served first. */
  forget(owner: Owner, owners: Owner[]) {
    const { workspace, registration } = owner;
    if (!owners.some((o) => o.workspace === workspace)) this.servedAt.delete(workspaceKey(owner));
    if (!owners.some((o) => o.workspace === workspace && o.registration === registration))
      this.servedAt.delete(registrationKey(owner));
  }
}

const workspaceKey = (o: Owner) => `w\u0000${o.workspace}`;
const registrationKey = (o: Owner) => `r\u0000${o.workspace}\u0000${o.registration}`;
