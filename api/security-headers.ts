// Security headers on every response (helmet): nosniff, HSTS, no referrer, same-origin resource and opener
// policies, and a CSP that loads nothing and cannot be framed. Routes serving pages set their own CSP over it (docs,
// review page, wizard). Responses are `Cache-Control: no-store` unless a route says otherwise (the SMP's public
// documents, static assets): most carry personal data (entries, mandates, identity images, the review queue).
import type { RequestHandler } from 'express';
import helmet from 'helmet';

export function securityHeaders(): RequestHandler[] {
  const headers = helmet({
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
    xFrameOptions: { action: 'deny' },
  }) as RequestHandler;
  const noStore: RequestHandler = (_req, res, next) => {
    res.set('cache-control', 'no-store');
    next();
  };
  return [headers, noStore];
}

/**
 * For pages embeddable by configured origins (the wizard, WIZARD_FRAME_ANCESTORS): their CSP's frame-ancestors
 * decides, which X-Frame-Options (no list of origins) would contradict in older browsers.
 */
export const framingByCspOnly: RequestHandler = (_req, res, next) => {
  res.removeHeader('x-frame-options');
  next();
};
