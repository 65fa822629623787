// What a route of the simulator works with: the simulator's state, and the request it answers.
import type http from 'node:http';
import type { StoredCompany } from './companies';
import type { RateLimiter } from './rate-limit';
import type { BodySchema } from './spec';
import type { LineStore } from './store';

export interface Sim {
  store: LineStore;
  /** The register's companies (written through the store, which keeps them). */
  companies: ReadonlyMap<string, StoredCompany>;
  /** The Annuaire API's request rate limit (benchmarks). */
  limiter: RateLimiter;
  /** Runs a state change and persists it (what it changed, appended to the journal). */
  commit<T>(fn: () => T): T;
  /** Refuses (400) a body that does not match the spec's schema. */
  check(schema: BodySchema, body: unknown): void;
}

export interface Call {
  req: http.IncomingMessage;
  method: string;
  /** The path, decoded, without the base path or a trailing slash. */
  path: string;
  url: URL;
  /** The body as read (a fault may have targeted it). */
  raw: string;
  day: string;
  /** The authenticated client. */
  by: string;
  /** A business answer, unless an injected fault loses it (the work done all the same). */
  answer(status: number, body?: unknown): void;
}
