// A plain HTTP proxy in front of a simulator that records what a client sent: method, path and headers, in order.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
}

export interface RecordingProxy {
  /** `target` (a URL of the simulator) as seen through the proxy. */
  via(target: string): string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export async function recordingProxy(origin: string): Promise<RecordingProxy> {
  const up = new URL(origin);
  const requests: RecordedRequest[] = [];
  const server = http.createServer((req, res) => {
    requests.push({ method: req.method!, path: req.url!, headers: req.headers });
    const forward = http.request(
      {
        host: up.hostname,
        port: up.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: up.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const here = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    via: (target) => here + new URL(target).pathname,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
