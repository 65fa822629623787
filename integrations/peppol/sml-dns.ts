// Where the SML's DNS says a participant's SMP is: the U-NAPTR lookup Peppol access points make (Peppol SML 1.3:
// `Meta:SMP` records under `<hash>.iso6523-actorid-upis.<zone>`, the hash being base32 of SHA-256 of the lower-cased
// identifier value). The resolver is configuration: the SML's zone answers on the public DNS, the simulator locally.
import crypto from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import { base32 } from 'rfc4648';
import { parseParticipantId } from './participant-id';
import { RemoteFailure } from '../../domain/remote-failure';

export interface SmlDnsOptions {
  /** The SML's DNS zone, e.g. edelivery.tech.ec.europa.eu. */
  zone: string;
  /** Name servers as host:port; the system's when empty. */
  servers: readonly string[];
  timeoutMs?: number;
}

export interface SmlDns {
  /** The SMP addresses the SML's DNS gives for a participant; empty when it has none (NXDOMAIN or no record). */
  smpUrls(participantId: string): Promise<string[]>;
}

/** The DNS name of a participant in the SML's zone. */
export function participantDnsName(participantId: string, zone: string): string {
  const { scheme, value } = parseParticipantId(participantId);
  const digest = crypto.createHash('sha256').update(value.toLowerCase(), 'utf8').digest();
  return `${base32.stringify(digest, { pad: false }).toLowerCase()}.${scheme}.${zone}`;
}

/** `!^.*$!https://smp.example!` → https://smp.example: the U flag's whole-name replacement. */
function regexpTarget(regexp: string): string | undefined {
  const delim = regexp[0];
  if (!delim) return undefined;
  const parts = regexp.split(delim);
  return parts.length >= 4 && parts[1] === '^.*$' ? parts[2] : undefined;
}

export function createSmlDns(o: SmlDnsOptions): SmlDns {
  const resolver = new Resolver({ timeout: o.timeoutMs ?? 5_000, tries: 2 });
  if (o.servers.length) resolver.setServers([...o.servers]);
  return {
    async smpUrls(participantId) {
      const name = participantDnsName(participantId, o.zone);
      try {
        const records = await resolver.resolveNaptr(name);
        return records
          .filter((r) => r.service === 'Meta:SMP' && r.flags.toUpperCase() === 'U')
          .sort((a, b) => a.order - b.order || a.preference - b.preference)
          .map((r) => regexpTarget(r.regexp))
          .filter((u): u is string => u !== undefined);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ENOTFOUND' || code === 'ENODATA') return [];
        throw new RemoteFailure('sml', `SML DNS lookup of ${name} failed: ${code ?? (err as Error).message}`, true);
      }
    },
  };
}
