// The SML's DNS name of a participant (Peppol SML spec, U-NAPTR form): lowercase(base32 without padding of
// SHA-256(lowercased value))) + `.<scheme>.` + zone. Written here rather than imported so that the simulator stays an
// independent implementation of the rule our client follows.
import crypto from 'node:crypto';

const ALPHABET = Buffer.from('abcdefghijklmnopqrstuvwxyz234567'); // RFC 4648 base32, lowercased

/** Written into one buffer: labels are computed for every participant registered, 100,000 in a bulk seed. */
function base32NoPad(bytes: Uint8Array): string {
  const out = Buffer.allocUnsafe(Math.ceil((bytes.length * 8) / 5));
  let n = 0;
  let bits = 0;
  let acc = 0;
  for (const b of bytes) {
    acc = ((acc << 8) | b) & 0xfff; // at most 12 bits are ever pending
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out[n++] = ALPHABET[(acc >>> bits) & 31]!;
    }
  }
  if (bits > 0) out[n++] = ALPHABET[(acc << (5 - bits)) & 31]!;
  return out.toString('latin1', 0, n);
}

/** The hashed label of a participant value (`0088:123abc` → `y7dzfxaf…`). */
export const participantLabel = (value: string): string =>
  base32NoPad(crypto.hash('sha256', value.toLowerCase(), 'buffer'));

/** The full name (no trailing dot) for a canonical `scheme::value`, in `zone`. */
export function participantDnsName(participantKey: string, zone: string): string {
  const sep = participantKey.indexOf('::');
  return `${participantLabel(participantKey.slice(sep + 2))}.${participantKey.slice(0, sep)}.${zone}`;
}
