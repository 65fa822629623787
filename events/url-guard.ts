// Webhook URLs are chosen by API clients: without a guard, the service would POST (and report the answers of)
// addresses inside its own network — cloud metadata, databases, admin ports. Private, loopback and link-local
// destinations are refused, both in the URL and after DNS resolution (at connection time, so a name cannot
// resolve to a public address when checked and a private one when used). WEBHOOK_ALLOW_PRIVATE_NETWORKS lifts it
// for development and tests.
import dns from 'node:dns';
import net from 'node:net';
import { Agent } from 'undici';

const PRIVATE = new net.BlockList();
for (const [a, p] of [['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4]] as const) {
  PRIVATE.addSubnet(a, p, 'ipv4');
}
for (const [a, p] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8]] as const) PRIVATE.addSubnet(a, p, 'ipv6');

export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return isPrivateAddress(mapped);
  const family = net.isIP(address);
  return family === 0 ? false : PRIVATE.check(address, family === 6 ? 'ipv6' : 'ipv4');
}

/** Why a subscription URL is refused up front (a literal private address or localhost), or undefined. */
export function refusedWebhookUrl(url: string): string | undefined {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost') || isPrivateAddress(host)) {
    return `${host} is a private or local address: webhooks go to public addresses only`;
  }
  return undefined;
}

/** An HTTP dispatcher that refuses to connect to private addresses, whatever the name resolved to. */
export const publicOnlyDispatcher = (): Agent =>
  new Agent({
    connect: {
      lookup(hostname, options, callback) {
        dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
          if (err) return callback(err, '', 0);
          const usable = (addresses as dns.LookupAddress[]).filter((a) => !isPrivateAddress(a.address));
          if (!usable.length) return callback(new Error(`${hostname} resolves to a private address: refused`), '', 0);
          // Node asks for one address or, for happy eyeballs, all of them.
          if ((options as { all?: boolean }).all) (callback as unknown as (e: null, all: dns.LookupAddress[]) => void)(null, usable);
          else callback(null, usable[0]!.address, usable[0]!.family);
        });
      },
    },
  });
