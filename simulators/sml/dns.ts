// The SML's DNS zone, as Peppol's U-NAPTR lookups see it: an authoritative responder on UDP and TCP (one port) that
// answers, for `<hash>.iso6523-actorid-upis.<zone>` of a registered participant, one NAPTR record pointing at its
// SMP's URL (Peppol SML spec: order 100, preference 10, flags U, service Meta:SMP, regexp !^.*$!<url>!). Wire format
// by dns-packet. Unknown names in the zone: NXDOMAIN; names outside it: REFUSED (no recursion); other types:
// NOERROR without answers; negative answers carry the zone's SOA (RFC 2308). A packet that does not decode is answered
// FORMERR when its header can be read, else dropped; nothing a client sends stops the responder.
import dgram from 'node:dgram';
import net from 'node:net';
import dnsPacket from 'dns-packet';

export const DEFAULT_DNS_ZONE = 'sml.peppol.localhost'; // under .localhost (RFC 6761): never a real zone
export const PARTICIPANT_SCHEME_LABEL = 'iso6523-actorid-upis';

const RCODE = { NOERROR: 0, FORMERR: 1, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5 } as const;
const UDP_MAX = 512; // without EDNS (which this responder does not speak), RFC 1035 §4.2.1
const TCP_IDLE_MS = 10_000;

export interface DnsZoneOptions {
  /** Lowercase, no leading or trailing dot. */
  zone: string;
  ttl: number;
  /** The URL of the SMP a participant's hashed label points to, when that participant is registered. */
  smpUrlOfLabel(label: string): string | undefined;
}

export interface DnsResponder {
  address: string;
  port: number;
  close(): Promise<void>;
}

/** The answer to one query message (undefined: drop it). */
export function answerQuery(query: Buffer, zone: DnsZoneOptions): Buffer | undefined {
  if (query.length < 12 || query[2]! & 0x80) return undefined; // no header, or a response: never answer those
  const id = query.readUInt16BE(0);
  const opcodeBits = query[2]! & 0x78;
  const rd = query[2]! & 0x01 ? dnsPacket.RECURSION_DESIRED : 0;
  let req: dnsPacket.DecodedPacket;
  try {
    req = dnsPacket.decode(query);
  } catch {
    return dnsPacket.encode({ type: 'response', id, flags: opcodeBits | rd | RCODE.FORMERR });
  }
  const questions = req.questions ?? [];
  const reply = (rcode: number, more: Partial<dnsPacket.Packet> = {}, aa = true) =>
    dnsPacket.encode({
      type: 'response',
      id,
      flags: opcodeBits | rd | (aa ? dnsPacket.AUTHORITATIVE_ANSWER : 0) | rcode,
      questions,
      ...more,
    });
  if (opcodeBits !== 0) return reply(RCODE.NOTIMP, {}, false); // only QUERY
  const q = questions[0];
  if (!q || questions.length > 1) return reply(RCODE.FORMERR, {}, false);
  if (q.class !== undefined && q.class !== 'IN' && q.class !== 'ANY') return reply(RCODE.REFUSED, {}, false);
  const name = q.name.toLowerCase().replace(/\.$/, '');
  const { zone: z, ttl } = zone;
  if (name !== z && !name.endsWith(`.${z}`)) return reply(RCODE.REFUSED, {}, false);
  const soa: dnsPacket.Answer = {
    type: 'SOA',
    name: z,
    ttl,
    data: {
      mname: `ns.${z}`,
      rname: `hostmaster.${z}`,
      serial: 1,
      refresh: 3600,
      retry: 600,
      expire: 86_400,
      minimum: ttl,
    },
  };
  const nodata = () => reply(RCODE.NOERROR, { authorities: [soa] });
  if (name === z) return q.type === 'SOA' ? reply(RCODE.NOERROR, { answers: [{ ...soa, name: q.name }] }) : nodata();
  const rest = name.slice(0, -(z.length + 1)).split('.');
  if (rest.length === 1 && rest[0] === PARTICIPANT_SCHEME_LABEL) return nodata(); // an empty non-terminal
  const url = rest.length === 2 && rest[1] === PARTICIPANT_SCHEME_LABEL ? zone.smpUrlOfLabel(rest[0]!) : undefined;
  if (url === undefined) return reply(RCODE.NXDOMAIN, { authorities: [soa] });
  if (q.type !== 'NAPTR' && (q.type as string) !== 'ANY') return nodata();
  const naptr: dnsPacket.Answer = {
    type: 'NAPTR',
    name: q.name, // as asked: resolvers may randomise the case (0x20) and check it comes back
    ttl,
    data: { order: 100, preference: 10, flags: 'U', services: 'Meta:SMP', regexp: `!^.*$!${url}!`, replacement: '.' },
  };
  return reply(RCODE.NOERROR, { answers: [naptr] });
}

/** Over UDP, an answer too large for 512 bytes goes back truncated (TC), so that the client asks again over TCP. */
function udpAnswer(query: Buffer, zone: DnsZoneOptions): Buffer | undefined {
  const out = answerQuery(query, zone);
  if (!out || out.length <= UDP_MAX) return out;
  const p = dnsPacket.decode(out);
  return dnsPacket.encode({ ...p, flags: (p.flags ?? 0) | dnsPacket.TRUNCATED_RESPONSE, answers: [], authorities: [] });
}

/** Starts the responder on `port` (0: a free port, the same for UDP and TCP). */
export async function startDnsResponder(host: string, port: number, zone: DnsZoneOptions): Promise<DnsResponder> {
  for (let attempt = 0; ; attempt++) {
    const udp = dgram.createSocket(net.isIPv6(host) ? 'udp6' : 'udp4');
    await new Promise<void>((resolve, reject) => {
      udp.once('error', reject);
      udp.bind(port, host, () => resolve());
    });
    // TCP on the address UDP got (a host name such as localhost could resolve to another family for TCP).
    const { address, port: bound } = udp.address();
    const tcp = net.createServer((socket) => serveTcp(socket, zone));
    try {
      await new Promise<void>((resolve, reject) => {
        tcp.once('error', reject);
        tcp.listen(bound, address, () => resolve());
      });
    } catch (err) {
      udp.close();
      // A free UDP port may be taken on TCP: with port 0, try another.
      if (port === 0 && (err as NodeJS.ErrnoException).code === 'EADDRINUSE' && attempt < 10) continue;
      throw err;
    }
    udp.on('error', () => {}); // e.g. ICMP-reported send failures: the client simply gets no answer
    udp.on('message', (msg, rinfo) => {
      const out = safely(() => udpAnswer(msg, zone));
      if (out) udp.send(out, rinfo.port, rinfo.address);
    });
    const sockets = new Set<net.Socket>();
    tcp.on('connection', (s) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    return {
      // Resolvers take an IP address; a wildcard bind is reached through the loopback.
      address: address === '0.0.0.0' ? '127.0.0.1' : address === '::' ? '::1' : address,
      port: bound,
      close: async () => {
        for (const s of sockets) s.destroy();
        await Promise.all([
          new Promise<void>((resolve) => tcp.close(() => resolve())),
          new Promise<void>((resolve) => udp.close(() => resolve())),
        ]);
      },
    };
  }
}

/** A query the library cannot answer (a question it decodes but cannot encode back) is dropped, never thrown. */
function safely(answer: () => Buffer | undefined): Buffer | undefined {
  try {
    return answer();
  } catch {
    return undefined;
  }
}

/** DNS over TCP: each message is preceded by its length on two bytes (RFC 1035 §4.2.2); several may follow. */
function serveTcp(socket: net.Socket, zone: DnsZoneOptions): void {
  let buf = Buffer.alloc(0);
  socket.setTimeout(TCP_IDLE_MS, () => socket.destroy());
  socket.on('error', () => {});
  socket.on('data', (chunk) => {
    buf = Buffer.concat([buf, chunk]);
    while (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
      const msg = buf.subarray(2, 2 + buf.readUInt16BE(0));
      buf = buf.subarray(2 + msg.length);
      const out = safely(() => answerQuery(msg, zone));
      if (!out) continue;
      const len = Buffer.alloc(2);
      len.writeUInt16BE(out.length);
      socket.write(Buffer.concat([len, out]));
    }
  });
}
