// What the checks recorded with the submission say beside the signer's facts: whether the public register lists the
// signer among the company's directors, whom a digital signature's certificate names and whether the platform trusts
// it; and an automatic approval: its rule, and until when an operator may still overturn it by rejecting.
import { byId } from '../../page-kit/dom';
import { say, type Submission } from './session';

export function showSignerCheck(d: Submission): void {
  const box = byId('signer-check');
  const c = d.signer_check;
  box.hidden = !c;
  if (!c) return;
  if (c.result !== 'pass') {
    say(box, `signer-${c.code}`, {}, 'warning').title = c.reason;
    return;
  }
  const role = c.director.role ? `, ${c.director.role}` : '';
  const via = c.director.via;
  if (via) say(box, 'signerPassVia', { name: c.director.name, role, holding: via.name, siren: via.siren }, 'ok');
  else say(box, 'signerPass', { name: c.director.name, role }, 'ok');
}

export function showCertificate(d: Submission): void {
  const box = byId('certificate');
  const s = d.signature;
  const cert = s?.kind === 'digital-signature' ? s.certificate : null;
  box.hidden = !cert;
  if (!cert || s?.kind !== 'digital-signature') return;
  const who = [cert.names.given, cert.names.surname].filter(Boolean).join(' ') || cert.names.common || cert.subject;
  const vars = { who, issuer: cert.issuer, trust: cert.trust };
  say(box, cert.trusted ? 'certificateTrusted' : 'certificateUntrusted', vars, cert.trusted ? 'ok' : 'warning');
  if (!s.names_signer) box.append(' ', say(document.createElement('span'), 'certificateOther', {}, 'warning'));
}

/** An automatic approval; true while an operator may still overturn it (reject). */
export function showAutomatic(d: Submission): boolean {
  const box = byId('automatic');
  const auto = d.decision?.automatic;
  box.hidden = !auto;
  if (!auto || !d.decision) return false;
  const until = auto.overturnable_until;
  const open = !!until && Date.parse(until) > Date.now();
  const vars = { at: { date: d.decision.decided_at }, rule: auto.rule, version: auto.version ?? '—' };
  if (open) say(box, 'automaticDecision', { ...vars, until: { date: until } }, 'notice warning');
  else say(box, 'automaticClosed', vars, 'notice');
  return open;
}
