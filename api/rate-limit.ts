// Rate limits, token buckets in this process (bursts up to the per-minute amount; several API processes each apply
// them). Over one: 429 with Retry-After, as problem+json. None can be spent by one client against others behind the
// same address (a NAT, a proxy), nor stop probes: health, readiness, ping and metrics are not limited.
//   - per API key or operator credential (RATE_LIMIT_PER_MINUTE), after authentication: an authenticated request counts against its key only;
//   - failed authentications per client address, a bucket of their own (RATE_LIMIT_FAILED_AUTH_PER_MINUTE): past
//     it, a bad key is answered 429 rather than 401, while valid keys from that address go on;
//   - per client address, on the public pages and files (the wizard, the review page, the reference, unknown paths);
//   - per wizard link (/reg/<ref>/…), whoever sends the requests.
// The address is Express's req.ip, which honours TRUST_PROXY.
import type { Request, RequestHandler, Response } from 'express';
import ipaddr from 'ipaddr.js';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { principalId } from './auth';
import { coded, sendProblem, type HttpProblem } from '../web/http/problem';

interface Limit {
  perMinute: number;
  /** What is counted; undefined: not limited here. */
  keyOf: (req: Request, res: Response) => string | undefined;
  refusal: (seconds: number) => string;
  /** RateLimit-Limit/-Remaining on every answer (the per-key limit, the one integrators plan with). */
  advertise?: boolean;
}

function limiter({ perMinute, keyOf, refusal, advertise }: Limit): RequestHandler {
  const buckets = new RateLimiterMemory({ points: perMinute, duration: 60 });
  return async (req, res, next) => {
    const key = keyOf(req, res);
    if (key === undefined) return next();
    try {
      const r = await buckets.consume(key);
      if (advertise)
        res.set('ratelimit-limit', String(perMinute)).set('ratelimit-remaining', String(r.remainingPoints));
      next();
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      const seconds = Math.max(1, Math.ceil(err.msBeforeNext / 1000));
      res.set('retry-after', String(seconds)).set('ratelimit-limit', String(perMinute)).set('ratelimit-remaining', '0');
      sendProblem(res, 429, refusal(seconds), undefined, { code: 'rate-limited' });
    }
  };
}

export function rateLimit(perMinute: number): RequestHandler {
  return limiter({
    perMinute,
    advertise: true,
    keyOf: (_req, res) => principalId(res),
    refusal: (s) =>
      `rate limit of ${perMinute} requests per minute reached for this API key or operator credential: retry in ${s} s`,
  });
}

/**
 * The client as a limit sees it: an IPv4 address, or an IPv6 /64 (one subscriber's network: a client could
 * otherwise change addresses within it at will).
 */
export function clientKey(ip: string | undefined): string {
  if (!ip || !ipaddr.isValid(ip)) return ip ?? 'unknown';
  const a = ipaddr.process(ip); // ::ffff:a.b.c.d counts as a.b.c.d
  if (a.kind() === 'ipv4') return a.toString();
  const bytes = (a as ipaddr.IPv6).toByteArray().slice(0, 8);
  return `${ipaddr.fromByteArray([...bytes, 0, 0, 0, 0, 0, 0, 0, 0]).toString()}/64`;
}

/** Per client address; a request is counted once, however many routes it passes through. */
export function ipRateLimit(perMinute: number): RequestHandler {
  return limiter({
    perMinute,
    keyOf: (req, res) => {
      // An authenticated request (to a path no route answers) counts against its key only.
      if (res.locals.countedByAddress || principalId(res)) return undefined;
      res.locals.countedByAddress = true;
      return clientKey(req.ip);
    },
    refusal: (s) => `rate limit of ${perMinute} requests per minute reached for your address: retry in ${s} s`,
  });
}

/**
 * What a failed authentication is answered: its 401, or a 429 once its address is past `perMinute` failures. Valid
 * keys never spend from it.
 */
export function failedAuthentications(perMinute: number) {
  const buckets = new RateLimiterMemory({ points: perMinute, duration: 60 });
  return async (req: Request, problem: HttpProblem): Promise<HttpProblem> => {
    try {
      await buckets.consume(clientKey(req.ip));
      return problem;
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      const seconds = Math.max(1, Math.ceil(err.msBeforeNext / 1000));
      return coded(
        429,
        'rate-limited',
        `${perMinute} failed authentications per minute reached for your address: retry in ${seconds} s with a valid API key`,
        { 'retry-after': String(seconds), 'ratelimit-limit': String(perMinute), 'ratelimit-remaining': '0' },
      );
    }
  };
}

/** The first segment of a path, decoded as the router decodes a parameter (kept as it is if it cannot be). */
function segment(path: string, n: number): string | undefined {
  const raw = path.split('/')[n];
  if (!raw) return undefined;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw; // broken encoding: no link, the wizard answers 404; still counted
  }
}

/**
 * Mounted at /reg (routing ignores the case of that prefix): counts by the ref as the wizard's router reads it,
 * decoded, whatever its encoding in the URL. Not mounted at /reg/:ref: a parameter that cannot be decoded would
 * fail there, before the wizard could answer it as an unknown link.
 */
export function wizardRefRateLimit(perMinute: number): RequestHandler {
  return limiter({
    perMinute,
    keyOf: (req) => {
      const ref = segment(req.path, 1);
      if (ref?.toLowerCase() === 'bundle') return `bundle ${segment(req.path, 2) ?? ''}`; // a bundle's link: /bundle/{ref}
      return ref === undefined || ref.toLowerCase() === 'assets' ? undefined : ref; // the wizard's static files
    },
    refusal: (s) =>
      `rate limit of ${perMinute} requests per minute reached for this registration link: retry in ${s} s`,
  });
}
