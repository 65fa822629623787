// One structured log line per request (request id, route, status, time, workspace and key ids; no headers, no
// bodies, no query strings) and the HTTP latency histogram. The wizard's ref is a credential, and no ref a path
// carries appears (`/reg/<ref>/…`, `/silo/v1/entries/meta/<key>/<ref>`: every path parameter named like a ref),
// whatever the case or encoding of the path (platform/observability/logger.ts redactPath).
import crypto from 'node:crypto';
import { SpanStatusCode, trace } from '@opentelemetry/api';
import type { RequestHandler } from 'express';
import { pinoHttp } from 'pino-http';
import type { Logger } from 'pino';
import { redactPath as redact, redactRefRoutes } from '../platform/observability/logger';
import { httpDuration } from '../platform/observability/metrics';
import { OPERATIONS, operationFor } from './operations';
import type { ApiKeyIdentity } from '../platform/store/workspaces';
import type { OperatorIdentity } from '../platform/store/operators';

const SAFE_REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;
// Every operation's path parameters named like a ref (the wizard's, the meta lookup's) are left out of the logs and
// spans, and out of the error log of web/http/problem.ts: all three redact with redactPath.
redactRefRoutes(OPERATIONS.map((op) => op.path));
const QUIET = new Set(['/metrics', '/utils/v1/health/live', '/utils/v1/health/ready']);

/**
 * The operation's path pattern (`/silo/v1/entries/:id`, `/reg/:ref/api/state`), or `unmatched`: bounded label values,
 * the same whether the handler answered or threw (Express has forgotten the mount path by then).
 */
function routeOf(req: Parameters<RequestHandler>[0]): string {
  return operationFor(req.method, req.originalUrl.split('?')[0]!)?.path ?? 'unmatched';
}

export function observability(log: Logger): RequestHandler[] {
  const logging = pinoHttp({
    logger: log,
    genReqId: (req, res) => {
      const given = req.headers['x-request-id'];
      const id = typeof given === 'string' && SAFE_REQUEST_ID.test(given) ? given : crypto.randomUUID();
      res.setHeader('x-request-id', id);
      return id;
    },
    autoLogging: { ignore: (req) => QUIET.has((req.url ?? '').split('?')[0]!) },
    serializers: {
      req: (req) => ({ id: req.id, method: req.method, path: redact(String(req.url ?? '').split('?')[0]!) }),
      res: (res) => ({ status: res.statusCode }),
    },
    // Who called, by id only: an operator's name is a person's, and stays out of the logs.
    customProps: (_req, res) => {
      const locals = (res as unknown as { locals?: { auth?: ApiKeyIdentity; operator?: OperatorIdentity } }).locals;
      if (locals?.auth) return { workspaceId: locals.auth.workspaceId, keyId: locals.auth.keyId };
      if (locals?.operator)
        return { operatorId: locals.operator.operatorId, credentialId: locals.operator.credentialId };
      return {};
    },
    customLogLevel: (_req, res, err) =>
      err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info',
  });
  const tracer = trace.getTracer('pa-api'); // a no-op unless platform/observability/tracing.ts installed a provider
  const timing: RequestHandler = (req, res, next) => {
    const end = httpDuration.startTimer();
    tracer.startActiveSpan(
      `${req.method} ${redact(req.path)}`,
      { attributes: { 'http.request.method': req.method } },
      (span) => {
        // 'close' also fires for requests the client aborted: every span ends, every request is measured.
        res.once('close', () => {
          const route = routeOf(req);
          end({ method: req.method, route, status: String(res.statusCode) });
          span.updateName(`${req.method} ${route}`);
          span.setAttributes({ 'http.route': route, 'http.response.status_code': res.statusCode });
          if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
          span.end();
        });
        next();
      },
    );
  };
  return [logging as unknown as RequestHandler, timing];
}
