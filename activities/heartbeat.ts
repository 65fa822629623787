// Heartbeats while an activity runs, so that a worker that dies mid-call is noticed within the heartbeat timeout
// (contract/providers.ts) instead of the whole start-to-close timeout.
import { Context } from '@temporalio/activity';
import { HEARTBEAT_EVERY_MS } from '../contract/providers';

export function withHeartbeat<A extends unknown[], R>(fn: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return async (...args) => {
    const ctx = Context.current();
    const timer = setInterval(() => ctx.heartbeat(), HEARTBEAT_EVERY_MS);
    try {
      return await fn(...args);
    } finally {
      clearInterval(timer);
    }
  };
}
