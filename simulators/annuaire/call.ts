// What a route of the simulator works with: the simulator's state, and the request it answers.
import type http from 'node:http';
import type { SimCompany } from './companies';
import type { BodySchema } from './spec';
import type { LineStore } from './store';

export interface Sim {
  store: LineStore;
  companies: Map<string, SimCompany & { idInstance: number }>;
  /** Runs a state change and persists it. */
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
