// What the checks recorded with the submission say beside the signer's facts: whether the public register lists the
// signer among the company's representatives (and, when not, whom it lists), whom a digital signature's certificate
// names and whether the platform trusts it; and an automatic approval: its rule and conditions, when the registration
// runs on, and until when an operator may still overturn it by rejecting.
import { byId, make } from '../../page-kit/dom';
import { known, say, t, type Submission } from './session';

export function showSignerCheck(d: Submission): void {
  const box = byId('signer-check');
  const c = d.signer_check;
  box.hidden = !c;
  if (!c) return;
  if (c.result === 'pass') {
    const role = c.director.role ? `, ${c.director.role}` : '';
    const via = c.director.via;
    if (via) say(box, 'signerPassVia', { name: c.director.name, role, holding: via.name, siren: via.siren }, 'ok');
    else say(box, 'signerPass', { name: c.director.name, role }, 'ok');
    return;
  }
  say(box, `signer-${c.code}`, { role: c.result === 'fail' ? (c.role ?? '—') : '' }, 'warning').title = c.reason;
  if (c.result !== 'fail' || !d.party.siren) return;
  const list = c.listed.map((x) => (x.role ? `${x.name} (${x.role})` : x.name)).join(', ');
  if (list) box.append(' ', say(make('span'), 'signerListed', { list }));
  const link = make('a', {
    href: `https://annuaire-entreprises.data.gouv.fr/dirigeants/${d.party.siren}`,
    textContent: t('registerLink'),
  });
  link.rel = 'noopener noreferrer';
  link.target = '_blank';
  box.append(' ', link);
}

export function showCertificate(d: Submission): void {
  const box = byId('certificate');
  const s = d.signature;
  const cert = s?.kind === 'digital-signature' ? s.certificate : null;
  box.hidden = !cert;
  if (!cert || s?.kind !== 'digital-signature') return;
  const who = [cert.names.given, cert.names.surname].filter(Boolean).join(' ') || cert.names.common || cert.subject;
  say(box, `certificate-${cert.trust_code}`, { who, issuer: cert.issuer }, cert.trusted ? 'ok' : 'warning').title =
    cert.trust;
  if (!s.names_signer) box.append(' ', say(make('span'), 'certificateOther', {}, 'warning'));
}

/** An automatic approval; true while an operator may still overturn it (reject). */
export function showAutomatic(d: Submission): boolean {
  const box = byId('automatic');
  const auto = d.decision?.automatic;
  box.hidden = !auto;
  if (!auto || !d.decision) return false;
  const until = auto.overturnable_until;
  const open = !!until && Date.parse(until) > Date.now();
  const inputs = auto.inputs as { conditions?: Record<string, boolean> } | undefined;
  const conditions = Object.keys(inputs?.conditions ?? {})
    .map((c) => (known(`cond-${c}`) ? t(`cond-${c}`) : c))
    .join(', ');
  const vars = { at: { date: d.decision.decided_at }, rule: auto.rule, version: auto.version ?? '—', conditions };
  if (open)
    say(
      box,
      'automaticDecision',
      { ...vars, until: { date: until }, runsOn: { date: auto.runs_on_at ?? until } },
      'notice warning',
    );
  else say(box, 'automaticClosed', vars, 'notice');
  return open;
}
