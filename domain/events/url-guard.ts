// Webhook URLs are chosen by API clients: without a guard, the service would POST (and report the answers of)
// addresses inside its own network — cloud metadata, databases, admin ports. Only global unicast destinations are
// allowed, decided by ipaddr.js's range tables (not hand-kept lists), both in the URL and after DNS resolution (at
// connection time, so a name cannot resolve to a public address when checked and a private one when used).
// IPv6 forms that carry an IPv4 address (IPv4-mapped, IPv4-compatible, NAT64, 6to4) are judged by that address;
// Teredo is refused outright. WEBHOOK_ALLOW_PRIVATE_NETWORKS lifts it for development and tests.
import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { Agent, buildConnector } from 'undici';

const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96');
const IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR('::/96');

const v4From = (bytes: number[]) => new ipaddr.IPv4(bytes as [number, number, number, number]);

/** The IPv4 address an IPv6 one stands for (mapped, compatible, NAT64, 6to4), or undefined. */
function embeddedIPv4(a: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const bytes = a.toByteArray();
  if (a.isIPv4MappedAddress()) return a.toIPv4Address();
  if (a.match(NAT64_WELL_KNOWN) || a.match(IPV4_COMPATIBLE)) return v4From(bytes.slice(12, 16));
  if (a.range() === '6to4') return v4From(bytes.slice(2, 6)); // 2002:AABB:CCDD::/48
  return undefined;
}

function isPublic(a: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  if (a.kind() === 'ipv4') return a.range() === 'unicast';
  const v6 = a as ipaddr.IPv6;
  const v4 = embeddedIPv4(v6);
  if (v4) return isPublic(v4);
  return v6.match(GLOBAL_UNICAST_V6) && v6.range() === 'unicast'; // not Teredo, documentation, ORCHID, …
}

/** True unless `address` (an IP literal, brackets and zone allowed) is a global unicast address. Names are not IPs. */
export function isPrivateAddress(address: string): boolean {
  const literal = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (!ipaddr.isValid(literal) || net.isIP(literal) === 0) return false; // a name (ipaddr.js also reads "127.1")
  return !isPublic(ipaddr.parse(literal));
}

/** Why a subscription URL is refused up front (a literal non-public address or a local name), or undefined. */
export function refusedWebhookUrl(url: string): string | undefined {
  // The URL parser has already normalised IPv4 forms (0x7f.1, 2130706433) to dotted quads.
  const host = new URL(url).hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.+$/, '')
    .toLowerCase(); // `localhost.` is localhost
  if (host === '' || host === 'localhost' || host.endsWith('.localhost') || isPrivateAddress(host)) {
    return `${host || url} is a private or local address: webhooks go to public addresses only`;
  }
  return undefined;
}

/**
 * An HTTP dispatcher that refuses to connect to non-public addresses, whatever the name resolved to, and connects
 * to the very address it checked. IP literals are checked too: Node connects to them without any lookup.
 */
export function publicOnlyDispatcher(): Agent {
  const connector = buildConnector({
    lookup(hostname, options, callback) {
      dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
        if (err) return callback(err, '', 0);
        const usable = (addresses as dns.LookupAddress[]).filter((a) => !isPrivateAddress(a.address));
        if (!usable.length) return callback(new Error(`${hostname} resolves to a private address: refused`), '', 0);
        // Node asks for one address or, for happy eyeballs, all of them.
        if ((options as { all?: boolean }).all)
          (callback as unknown as (e: null, all: dns.LookupAddress[]) => void)(null, usable);
        else callback(null, usable[0]!.address, usable[0]!.family);
      });
    },
  } as buildConnector.BuildOptions);
  return new Agent({
    connect(options, callback) {
      if (isPrivateAddress(options.hostname))
        return callback(new Error(`${options.hostname} is a private address: refused`), null);
      connector(options, callback);
    },
  });
}
