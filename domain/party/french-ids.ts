// French company identifiers: SIREN (9 digits), SIRET (14 digits), intra-EU VAT number (FR + key + SIREN).

/** Luhn checksum over a string of digits. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

export function isSiren(value: string): boolean {
  return /^\d{9}$/.test(value) && luhnValid(value);
}

// La Poste's establishments do not follow Luhn: their SIRET is valid when the digit sum is a multiple of 5.
const LA_POSTE_SIREN = '356000000';

export function isSiret(value: string): boolean {
  if (!/^\d{14}$/.test(value)) return false;
  if (value.startsWith(LA_POSTE_SIREN) && value !== '35600000000048') {
    const digitSum = [...value].reduce((s, c) => s + Number(c), 0);
    return digitSum % 5 === 0;
  }
  return luhnValid(value);
}

/** The two-digit key of the French VAT number for a SIREN: (12 + 3 × (SIREN mod 97)) mod 97. */
export function frenchVatKey(siren: string): string {
  const key = (12 + 3 * (Number(siren) % 97)) % 97;
  return key.toString().padStart(2, '0');
}

/** A French VAT code without the country prefix, as GOBL stores it in `tax_id.code`. */
export function parseFrenchVatCode(code: string): { key: string; siren: string } | undefined {
  const m = /^([0-9A-Z]{2})(\d{9})$/.exec(code);
  if (!m) return undefined;
  return { key: m[1]!, siren: m[2]! };
}

export type VatCheck = { ok: true; siren: string } | { ok: false; reason: string };

/** Checks a French VAT code (with or without the `FR` prefix) whose key is numeric. */
export function checkFrenchVat(input: string): VatCheck {
  const code = input
    .replace(/^FR/i, '')
    .replace(/[\s.-]/g, '')
    .toUpperCase();
  const parts = parseFrenchVatCode(code);
  if (!parts) return { ok: false, reason: 'must be 2 key characters followed by the 9-digit SIREN' };
  if (!isSiren(parts.siren)) return { ok: false, reason: `${parts.siren} is not a valid SIREN (Luhn check failed)` };
  // Keys with letters are issued to non-established businesses without a SIREN-based key; we only register SIREN holders.
  if (!/^\d{2}$/.test(parts.key)) return { ok: false, reason: 'the key must be numeric for a company with a SIREN' };
  const expected = frenchVatKey(parts.siren);
  if (parts.key !== expected)
    return { ok: false, reason: `key ${parts.key} does not match SIREN ${parts.siren} (expected ${expected})` };
  return { ok: true, siren: parts.siren };
}
