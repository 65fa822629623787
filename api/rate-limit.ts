// Per-key rate limits: a token bucket per API key in this process (RATE_LIMIT_PER_MINUTE, bursts up to the same
// amount). Over it: 429 with Retry-After, as problem+json. Several API processes each apply the limit.
import type { RequestHandler } from 'express';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { auth } from './auth';
import { sendProblem } from './problem';

export function rateLimit(perMinute: number): RequestHandler {
  const limiter = new RateLimiterMemory({ points: perMinute, duration: 60 });
  return async (_req, res, next) => {
    try {
      const r = await limiter.consume(auth(res).keyId);
      res.set('ratelimit-limit', String(perMinute)).set('ratelimit-remaining', String(r.remainingPoints));
      next();
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      const seconds = Math.max(1, Math.ceil(err.msBeforeNext / 1000));
      res.set('retry-after', String(seconds));
      sendProblem(res, 429, `rate limit of ${perMinute} requests per minute reached for this API key: retry in ${seconds} s`);
    }
  };
}
