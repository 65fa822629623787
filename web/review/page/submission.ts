// One submission opened: what was declared, the PPF Annuaire's own record, how the mandate was signed, what an
// address update adds, the decisions made before, then the documents. The buttons open once all is shown.
import { answer } from '../../page-kit/api';
import { byId, make } from '../../page-kit/dom';
import { showImages, showMandate } from './documents';
import { showAutomatic, showCertificate, showSignerCheck } from './checks';
import { renderQueue } from './queue';
import { client, known, say, sayError, session, type Listed, type Submission } from './session';

const FACTS = [
  'party-name',
  'party-siren',
  'party-vat',
  'party-address',
  'signer-name',
  'signer-role',
  'signer-id-number',
];

/** Approving needs every document on screen; rejecting (with a reason) only needs the loading to be over. */
export function setButtons({ approve, reject }: { approve: boolean; reject: boolean }): void {
  byId<HTMLButtonElement>('approve').disabled = !approve;
  byId<HTMLButtonElement>('reject').disabled = !reject;
  byId<HTMLTextAreaElement>('reason').disabled = !reject;
}

/** Swaps an element for an empty copy: a late answer for a previous submission lands in the detached one. */
function emptied(id: string): HTMLElement {
  const fresh = byId(id).cloneNode(false) as HTMLElement; // its attributes (the mandate's: a focusable region)
  byId(id).replaceWith(fresh);
  return fresh;
}

export async function open(item: Listed): Promise<void> {
  const mine = ++session.seq;
  const stale = () => mine !== session.seq;
  session.current = { item };
  renderQueue();
  setButtons({ approve: false, reject: false });
  byId('detail').hidden = false;
  byId<HTMLTextAreaElement>('reason').value = '';
  say('title', 'detailTitle', { name: item.name ?? '—', number: item.mandate_number });
  for (const id of ['detail-error', 'outcome', 'directory-message', 'mandate-message']) say(id, null);
  for (const id of FACTS) say(id, 'loading');
  say('directory-message', 'dirLoading');
  say('outcome', 'waitDocuments', {}, 'hint');
  for (const id of [
    'directory-record',
    'evidence',
    'four-eyes',
    'automatic',
    'signer-check',
    'certificate',
    'replaces',
    'bundle',
    'history',
    'zoom',
  ])
    byId(id).hidden = true;
  byId('history-list').replaceChildren();
  byId('bundle-list').replaceChildren();
  const images = emptied('images');
  byId('image-messages').replaceChildren();
  const pages = emptied('mandate');
  byId('title').focus();

  let detail: Submission;
  try {
    const path = { silo_entry_id: item.entry_id };
    detail = await answer(client.GET('/apps/gov-fr/v1/review/submissions/{silo_entry_id}', { params: { path } }));
  } catch (err) {
    if (stale()) return;
    sayError('detail-error', err);
    for (const id of [...FACTS, 'directory-message', 'outcome']) say(id, null);
    return; // nothing shown: nothing to decide on
  }
  if (stale()) return;
  session.current.detail = detail;
  showParty(detail);
  showDirectory(detail);
  showEvidence(item, detail);
  showSignerCheck(detail);
  showCertificate(detail);
  const overturnable = showAutomatic(detail);
  const mineFirst = showFourEyes(detail);
  showReplaces(detail);
  showBundle(detail);
  showHistory(detail);
  say('mandate-message', 'mandateLoading');
  const [imagesShown, mandateShown] = await Promise.all([
    showImages(detail, images, stale),
    showMandate(detail, pages, stale),
  ]);
  if (stale()) return;
  if (overturnable) {
    say('outcome', 'overturnHint', {}, 'hint');
    setButtons({ approve: false, reject: true });
    return;
  }
  if (!detail.awaiting_decision) {
    const d = detail.decision;
    if (d) say('outcome', 'recordedBefore', { decision: { key: d.decision }, at: { date: d.decided_at } }, 'ok');
    else say('outcome', 'notSubmitted', {}, 'error');
    return;
  }
  if (mineFirst) say('outcome', 'secondByOther', {}, 'error');
  else say('outcome', imagesShown && mandateShown ? null : 'approveBlocked', {}, 'error');
  setButtons({ approve: imagesShown && mandateShown && !mineFirst, reject: true });
}

/** A fact, or "not given" agreeing with its label (feminine labels: `fem`). */
function fact(id: string, value: string | null | undefined, fem = false): void {
  if (value) say(id, null).append(value);
  else say(id, fem ? 'missingF' : 'missing', {}, 'missing');
}

function showParty(d: Submission): void {
  fact('party-name', d.party.name, true); // la raison sociale
  fact('party-siren', d.party.siren);
  fact('party-vat', d.party.vat, true); // la TVA
  fact('party-address', d.party.address, true); // l'adresse
  fact('signer-name', [d.signer.given, d.signer.surname].filter(Boolean).join(' '));
  fact('signer-role', d.signer.role, true); // la fonction
  fact('signer-id-number', d.signer.id_number); // to compare with the document's images
}

/** The decisions already made on this registration (a rejection and its reason, before this new submission). */
function showHistory(d: Submission): void {
  // The automatic approval in force has its own notice (checks.ts); the history is for earlier decisions.
  const decisions = d.decisions.filter((x) => !(x.automatic && x.id === d.decision?.id));
  // A first approval of this submission is in the four-eyes notice; the history is for earlier decisions.
  if (!decisions.some((x) => x.stage !== 'first-approval')) return;
  byId('history-list').replaceChildren(
    ...decisions.map((x) => {
      const vars = {
        decision: {
          key: x.stage === 'first-approval' ? 'FirstApproval' : x.decision === 'approved' ? 'Approved' : 'Rejected',
        },
        at: { date: x.decided_at },
        reason: x.reason,
        name: x.decided_by?.name,
      };
      if (x.automatic)
        return say(document.createElement('li'), 'pastDecisionAuto', { ...vars, rule: x.automatic.rule });
      const key = `pastDecision${x.reason ? 'Reason' : ''}${x.decided_by ? 'By' : ''}`;
      return say(document.createElement('li'), key, vars);
    }),
  );
  byId('history').hidden = false;
}

function showDirectory(d: Submission): void {
  const dir = d.directory;
  const msg = byId('directory-message');
  if (dir.outcome !== 'found') {
    say(msg, `dir-${dir.outcome}`, { siren: d.party.siren ?? '' }, 'error');
    msg.title = dir.reason;
    return;
  }
  msg.removeAttribute('title');
  byId('directory-record').hidden = false;
  fact('dir-name', dir.record.name, true);
  fact('dir-siren', dir.record.siren);
  say('dir-status', dir.record.status, {}, dir.record.status === 'ceased' ? 'warning' : '');
  // The Annuaire's known entity types in the page's language; another value as the Annuaire gives it.
  const type = dir.record.entity_type;
  if (type && known(`type-${type}`)) say('dir-type', `type-${type}`);
  else fact('dir-type', type);
  if (dir.record.status === 'ceased') say(msg, 'ceasedWarning', {}, 'warning');
  else if (d.name_matches === false) say(msg, 'nameDiffers', {}, 'warning');
  else say(msg, null);
}

/**
 * A renewal's mandate: the operator decides on what it adds to the mandate in force, and on what else it states
 * differently (a legal name, a signer), each change a message of its own so that a language switch translates it.
 */
function showReplaces(d: Submission): void {
  if (!d.replaces) return;
  const { new_addresses: added, changed, mandate_number: old } = d.replaces;
  const box = byId('replaces');
  const kind = added.length ? 'replaces' : changed.length ? 'replacesChange' : 'replacesNothingNew';
  const notice = say(make('span'), kind, { old, added: added.join(', ') });
  const changes = changed.map((c) =>
    say(make('span'), c.was ? 'changedWas' : 'changed', { fact: { key: `fact-${c.fact}` }, was: c.was ?? '' }),
  );
  box.replaceChildren(notice, ...changes.flatMap((c) => [' ', c]));
  box.className = 'notice';
  box.hidden = false;
}

/** A campaign's bundle: the signer's other companies, how far each is; each is decided on its own. */
function showBundle(d: Submission): void {
  if (!d.bundle) return;
  byId('bundle-list').replaceChildren(
    ...d.bundle.companies.map((c) => {
      const status = c.decision ?? (c.submitted_at ? 'submitted' : 'waiting');
      const vars = { name: c.name ?? '—', siren: c.siren, status: { key: `bundleStatus-${status}` } };
      return say(make('li'), c.entry_id === d.entry_id ? 'bundleThis' : 'bundleCompany', vars);
    }),
  );
  byId('bundle').hidden = false;
}

/** How the mandate was signed: a scan asks the operator to check the number and the signature by eye. */
function showEvidence(item: Listed, d: Submission): void {
  const evidence = item.upload_evidence ?? null;
  const k = evidence ? `evidence-${evidence}` : d.signed_via ? `evidence-${d.signed_via}` : null;
  if (!k || !known(k)) return;
  say('evidence', k, { number: d.mandate_number }, evidence === 'scan' ? 'notice scan' : 'notice');
  byId('evidence').hidden = false;
}

/**
 * Four eyes: the decision policy asks this submission for two approvals. Says so, and who gave the first; true when it
 * was this operator (the second must come from another).
 */
function showFourEyes(d: Submission): boolean {
  const four = d.four_eyes;
  if (!four) return false;
  const rule = { key: `case-${four.policy_case}` };
  const first = four.first_approval;
  const box = byId('four-eyes');
  if (first)
    say(
      box,
      'fourEyesFirst',
      { rule, name: first.decided_by?.name ?? '—', at: { date: first.decided_at } },
      'notice warning',
    );
  else say(box, 'fourEyes', { rule }, 'notice');
  box.hidden = false;
  return !!first && first.decided_by?.id === session.operator?.id;
}
