// Ports for the servers a stack starts, picked below 32768: the OS hands out ephemeral ports (a listen on port 0, an
// outgoing connection's own port) above it, so between our probe and the server's bind no other process (a Temporal
// server picking its internal ports, a client connecting) takes one of ours. The membership ports of the Temporal
// server must be there anyway: its schema stores them in a SMALLINT (cluster_membership.rpc_port).
import crypto from 'node:crypto';
import net from 'node:net';

const isFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });

/** `n` distinct ports, free on 127.0.0.1 when probed. */
export async function freePorts(n: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < n) {
    const port = 20_000 + crypto.randomInt(12_768);
    if (!ports.has(port) && (await isFree(port))) ports.add(port);
  }
  return [...ports];
}

export const freePort = async (): Promise<number> => (await freePorts(1))[0]!;

/** A distinct free port for each name. */
export async function freePortsFor<K extends string>(names: readonly K[]): Promise<Record<K, number>> {
  const ports = await freePorts(names.length);
  return Object.fromEntries(names.map((name, i) => [name, ports[i]!])) as Record<K, number>;
}
