// /metrics (Prometheus text): on the API's port (behind METRICS_TOKEN when set), or on an internal listener of its
// own (METRICS_PORT).
import http from 'node:http';
import express, { type RequestHandler } from 'express';
import type { Config } from '../platform/config';
import { registry } from '../platform/observability/metrics';

/** GET /metrics (Prometheus text), behind `Authorization: Bearer <token>` when a token is given. */
export function metricsEndpoint(token: string | undefined): RequestHandler {
  return async (req, res) => {
    if (token && req.get('authorization') !== `Bearer ${token}`) {
      return void res.status(401).type('text/plain').send('metrics need the METRICS_TOKEN bearer token');
    }
    res.type(registry.contentType).send(await registry.metrics());
  };
}

/** The internal metrics listener (METRICS_PORT on METRICS_HOST), or undefined when the API's port serves them. */
export async function serveInternalMetrics(config: Config): Promise<http.Server | undefined> {
  if (config.METRICS_PORT === undefined) return undefined;
  const app = express();
  app.disable('x-powered-by');
  app.get('/metrics', metricsEndpoint(config.METRICS_TOKEN));
  const server = http.createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.METRICS_PORT, config.METRICS_HOST, resolve);
  });
  return server;
}
