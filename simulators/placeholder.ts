// Local simulators of the external systems (PPF Annuaire, SML, Peppol Directory). Their protocols land with
// later issues; until then each answers /health and replies 501 to everything else, saying so.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Simulator {
  name: string;
  url: string;
  close(): Promise<void>;
}

export async function startPlaceholderSimulator(name: string, host: string, port: number): Promise<Simulator> {
  const server = http.createServer((req, res) => {
    const send = (status: number, body: unknown, type = 'application/json') => {
      res.writeHead(status, { 'content-type': type });
      res.end(JSON.stringify(body));
    };
    if (req.method === 'GET' && req.url === '/health') return send(200, { simulator: name, status: 'ok', protocol: 'not implemented yet' });
    send(501, { type: 'about:blank', title: 'Not Implemented', status: 501, detail: `the ${name} simulator does not implement ${req.method} ${req.url} yet` }, 'application/problem+json');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const { port: bound } = server.address() as AddressInfo;
  return {
    name,
    url: `http://${host}:${bound}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export async function startSimulators(host: string, ports: { annuaire: number; sml: number; directory: number }) {
  return Promise.all([
    startPlaceholderSimulator('annuaire', host, ports.annuaire),
    startPlaceholderSimulator('sml', host, ports.sml),
    startPlaceholderSimulator('peppol-directory', host, ports.directory),
  ]);
}
