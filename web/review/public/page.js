// The operator's review page. The key stays in this tab (sessionStorage) and goes only to this service's API.
// Everything a decision rests on is shown, or the page says in words why it cannot be; approving needs the
// identity images and the mandate on screen, and a decision once recorded (here or elsewhere) closes the buttons.
import { STRINGS } from './i18n.js';

const api = '../v1';
const $ = (id) => document.getElementById(id);
let key = sessionStorage.getItem('operator-key') || '';
let lang = pickLang();
let queue = [];
let queueLoaded = false;
/** The submission on screen; `seq` tells a late answer for a submission no longer shown. */
let current;
let seq = 0;

function pickLang() {
  const asked = new URLSearchParams(location.search).get('lang');
  if (asked === 'en' || asked === 'fr') return asked;
  try {
    const kept = localStorage.getItem('review-lang');
    if (kept === 'en' || kept === 'fr') return kept;
  } catch {
    // storage blocked: French by default
  }
  return 'fr';
}

const formatDate = (iso) =>
  new Date(iso).toLocaleString(lang === 'fr' ? 'fr-FR' : 'en-GB', { dateStyle: 'medium', timeStyle: 'short' });
/** A string in the page's language; a variable may itself be a string key ({ key }) or a date ({ date }). */
function t(k, vars = {}) {
  const text = STRINGS[lang][k] ?? STRINGS.fr[k] ?? k;
  return text.replace(/\{(\w+)\}/g, (_, v) => {
    const value = vars[v];
    if (value && typeof value === 'object') return value.key ? t(value.key) : formatDate(value.date);
    return value ?? '';
  });
}

/**
 * Shows a message by key, kept on the element so that a language switch translates it. `detail` is the API's own
 * (English) word, given only where the page has no sentence of its own for the case: on a line of its own, labelled.
 */
function say(el, k, vars, cls = '', detail) {
  el = typeof el === 'string' ? $(el) : el;
  el.className = cls;
  if (!k) {
    delete el.dataset.msg;
    delete el.dataset.detail;
    el.textContent = '';
    return el;
  }
  el.dataset.msg = k;
  el.dataset.vars = JSON.stringify(vars ?? {});
  if (detail) el.dataset.detail = detail;
  else delete el.dataset.detail;
  render(el);
  return el;
}

function render(el) {
  el.textContent = t(el.dataset.msg, JSON.parse(el.dataset.vars));
  if (!el.dataset.detail) return;
  const small = document.createElement('small');
  small.className = 'api-detail';
  small.append(
    `${t('apiDetail')} `,
    Object.assign(document.createElement('span'), { lang: 'en', textContent: el.dataset.detail }),
  );
  el.append(small);
}

function applyLang() {
  document.documentElement.lang = lang;
  for (const el of document.querySelectorAll('[data-i18n]')) el.textContent = t(el.dataset.i18n);
  for (const el of document.querySelectorAll('[data-msg]')) render(el);
  for (const el of document.querySelectorAll('[data-alt]')) el.alt = t('imageAlt', { view: { key: el.dataset.alt } });
  $('lang-switch').textContent = t('switchTo');
  $('lang-switch').lang = lang === 'fr' ? 'en' : 'fr';
  renderQueue();
}

class ApiError extends Error {
  constructor(status, detail) {
    super(detail || `HTTP ${status}`);
    this.status = status;
    this.detail = detail;
  }
}

async function call(path, init = {}) {
  let res;
  try {
    res = await fetch(`${api}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${key}`, ...(init.body && { 'content-type': 'application/json' }) },
      cache: 'no-store',
    });
  } catch {
    throw new ApiError(0);
  }
  if (!res.ok) {
    const problem = await res.json().catch(() => ({}));
    throw new ApiError(res.status, problem.detail);
  }
  return res;
}

/** An API refusal as one of our sentences; `what` ('image', 'mandate') picks a closer one where there is. */
function errorKey(err, what) {
  if (err.status === 0) return 'err-network';
  for (const k of [what && `err-${err.status}-${what}`, `err-${err.status}`]) if (k && STRINGS.fr[k]) return k;
  return 'err-other';
}
/** Our sentences that say the case in full; after the others (a bare status), the API's detail says what it was. */
const GENERIC = new Set(['err-other', 'err-400']);
const detailFor = (err, k) => (GENERIC.has(k) ? err.detail : undefined);
/** An API refusal in words: ours, and the API's own detail only where ours is generic. */
function sayError(el, err) {
  const k = errorKey(err);
  return say(el, k, { status: err.status }, 'error', detailFor(err, k));
}

// The queue

async function loadQueue() {
  say('status', 'loadingQueue');
  queueLoaded = false;
  try {
    ({ list: queue } = await (await call('/review/submissions')).json());
    queueLoaded = true;
    renderQueue();
  } catch (err) {
    queue = [];
    queueLoaded = false;
    renderQueue();
    sayError('status', err);
  }
}

function renderQueue() {
  $('queue').replaceChildren(
    ...queue.map((s) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.append(`${s.name ?? '—'} · SIREN ${s.siren ?? '—'} · ${t('submittedAt', { at: { date: s.submitted_at } })}`);
      if (s.upload_evidence === 'scan')
        b.append(Object.assign(document.createElement('span'), { className: 'badge', textContent: t('scanBadge') }));
      if (current?.item.entry_id === s.entry_id) b.setAttribute('aria-current', 'true');
      b.onclick = () => open(s);
      const li = document.createElement('li');
      li.append(b);
      return li;
    }),
  );
  if (queueLoaded) say('status', queue.length ? 'queueCount' : 'queueEmpty', { n: queue.length });
}

// One submission

/** A fact, or "not given" agreeing with its label (feminine labels: `fem`). */
function fact(id, value, fem = false) {
  if (value) return say(id, null).append(value);
  say(id, fem ? 'missingF' : 'missing', {}, 'missing');
}

/** Approving needs every document on screen; rejecting (with a reason) only needs the loading to be over. */
function setButtons({ approve, reject }) {
  $('approve').disabled = !approve;
  $('reject').disabled = !reject;
  $('reason').disabled = !reject;
}

async function open(item) {
  const mine = ++seq;
  const stale = () => mine !== seq;
  current = { item, detail: undefined };
  renderQueue();
  setButtons({ approve: false, reject: false });
  $('detail').hidden = false;
  $('reason').value = '';
  say('title', 'detailTitle', { name: item.name ?? '—', number: item.mandate_number });
  for (const id of ['detail-error', 'outcome', 'directory-message', 'mandate-message']) say(id, null);
  for (const id of [
    'party-name',
    'party-siren',
    'party-vat',
    'party-address',
    'signer-name',
    'signer-role',
    'signer-id-number',
  ])
    say(id, 'loading');
  say('directory-message', 'dirLoading');
  say('outcome', 'waitDocuments', {}, 'hint');
  $('directory-record').hidden = true;
  $('evidence').hidden = true;
  $('replaces').hidden = true;
  $('history').hidden = true;
  $('history-list').replaceChildren();
  $('zoom').hidden = true;
  // Fresh containers: a late answer for a previous submission lands in a detached one.
  const images = $('images').cloneNode(false);
  $('images').replaceWith(images);
  $('image-messages').replaceChildren();
  const pages = $('mandate').cloneNode(false); // its attributes (a focusable region: keyboard users scroll it) without its pages
  $('mandate').replaceWith(pages);
  $('title').focus();

  let detail;
  try {
    detail = await (await call(`/review/submissions/${item.entry_id}`)).json();
  } catch (err) {
    if (stale()) return;
    sayError('detail-error', err);
    for (const id of [
      'party-name',
      'party-siren',
      'party-vat',
      'party-address',
      'signer-name',
      'signer-role',
      'signer-id-number',
      'directory-message',
    ])
      say(id, null);
    say('outcome', null);
    return; // nothing shown: nothing to decide on
  }
  if (stale()) return;
  current.detail = detail;
  showParty(detail);
  showDirectory(detail);
  showEvidence(item, detail);
  showReplaces(detail);
  showHistory(detail);
  say('mandate-message', 'mandateLoading');
  const [imagesShown, mandateShown] = await Promise.all([
    showImages(detail, images, stale),
    showMandate(detail, pages, stale),
  ]);
  if (stale()) return;
  if (!detail.awaiting_decision) {
    const d = detail.decision;
    if (d) say('outcome', 'recordedBefore', { decision: { key: d.decision }, at: { date: d.decided_at } }, 'ok');
    else say('outcome', 'notSubmitted', {}, 'error');
    return;
  }
  say('outcome', imagesShown && mandateShown ? null : 'approveBlocked', {}, 'error');
  setButtons({ approve: imagesShown && mandateShown, reject: true });
}

function showParty(d) {
  fact('party-name', d.party.name, true); // la raison sociale
  fact('party-siren', d.party.siren);
  fact('party-vat', d.party.vat, true); // la TVA
  fact('party-address', d.party.address, true); // l'adresse
  fact('signer-name', [d.signer.given, d.signer.surname].filter(Boolean).join(' '));
  fact('signer-role', d.signer.role, true); // la fonction
  fact('signer-id-number', d.signer.id_number); // to compare with the document's images
}

/** The decisions already made on this registration (a rejection and its reason, before this new submission). */
function showHistory(d) {
  const decisions = d.decisions ?? (d.decision ? [d.decision] : []);
  if (!decisions.length) return;
  $('history-list').replaceChildren(
    ...decisions.map((x) => {
      const vars = {
        decision: { key: x.decision === 'approved' ? 'Approved' : 'Rejected' },
        at: { date: x.decided_at },
        reason: x.reason,
      };
      return say(document.createElement('li'), x.reason ? 'pastDecisionReason' : 'pastDecision', vars);
    }),
  );
  $('history').hidden = false;
}

/** The newest rejection of this registration, if any: identity images older than it were not replaced since. */
const lastRejection = (d) => (d.decisions ?? []).find((x) => x.decision === 'rejected');

// Names compared as the directory writes them: no accents, case, punctuation or legal form (INSEE names omit it).
const LEGAL_FORMS = /\b(sa|sas|sasu|sarl|eurl|sci|snc|scop|selarl|sca|scs|ei)\b/g;
const comparable = (s) =>
  s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .replace(LEGAL_FORMS, '')
    .replace(/\s+/g, ' ')
    .trim();

function showDirectory(d) {
  const dir = d.directory;
  const msg = $('directory-message');
  if (dir.outcome !== 'found') {
    say(msg, `dir-${dir.outcome}`, { siren: d.party.siren ?? '' }, 'error');
    msg.title = dir.reason;
    return;
  }
  msg.removeAttribute('title');
  $('directory-record').hidden = false;
  fact('dir-name', dir.record.name, true);
  fact('dir-siren', dir.record.siren);
  say('dir-status', dir.record.status, {}, dir.record.status === 'ceased' ? 'warning' : '');
  // The Annuaire's known entity types in the page's language; another value as the Annuaire gives it.
  const type = dir.record.entity_type;
  if (type && STRINGS.fr[`type-${type}`]) say('dir-type', `type-${type}`);
  else fact('dir-type', type);
  if (dir.record.status === 'ceased') say(msg, 'ceasedWarning', {}, 'warning');
  else if (d.party.name && comparable(d.party.name) !== comparable(dir.record.name))
    say(msg, 'nameDiffers', {}, 'warning');
  else say(msg, null);
}

/** How the mandate was signed: a scan asks the operator to check the number and the signature by eye. */
/** An address update's mandate: the operator decides on what it adds to the mandate in force. */
function showReplaces(d) {
  if (!d.replaces) return;
  const added = d.replaces.new_addresses;
  say(
    'replaces',
    added.length ? 'replaces' : 'replacesNothingNew',
    {
      old: d.replaces.mandate_number,
      added: added.join(', '),
    },
    'notice',
  );
  $('replaces').hidden = false;
}

function showEvidence(item, d) {
  const evidence = item.upload_evidence ?? null;
  const k = evidence ? `evidence-${evidence}` : d.signed_via ? `evidence-${d.signed_via}` : null;
  if (!k || !STRINGS.fr[k]) return;
  say('evidence', k, { number: d.mandate_number }, evidence === 'scan' ? 'notice scan' : 'notice');
  $('evidence').hidden = false;
}

async function showImages(d, container, stale) {
  if (!d.identity.length) {
    say($('image-messages').appendChild(document.createElement('p')), 'noIdentity', {}, 'error');
    return false;
  }
  const rejection = lastRejection(d);
  const results = await Promise.all(
    d.identity.map(async ({ view, uploaded_at: uploadedAt }) => {
      const figure = document.createElement('figure');
      try {
        const blob = await (await call(`/entry/${d.entry_id}/identity/${view}`)).blob();
        const img = document.createElement('img');
        img.dataset.alt = view;
        img.alt = t('imageAlt', { view: { key: view } });
        img.src = URL.createObjectURL(blob);
        try {
          await img.decode();
        } catch {
          throw Object.assign(new Error('undecodable'), { undecodable: true });
        }
        if (stale()) return false;
        const caption = document.createElement('figcaption');
        const line = (k, vars, cls) => caption.appendChild(say(document.createElement('span'), k, vars, cls));
        line(view);
        if (uploadedAt) line('uploadedAt', { at: { date: uploadedAt } });
        // Was what the operator rejected replaced? An image older than the rejection is the one rejected.
        if (rejection && uploadedAt) {
          const old = new Date(uploadedAt) < new Date(rejection.decided_at);
          line(old ? 'notReplaced' : 'replaced', { at: { date: rejection.decided_at } }, old ? 'warning' : 'ok');
        }
        figure.append(img, caption);
        container.append(figure);
        return true;
      } catch (err) {
        if (stale()) return false;
        const p = $('image-messages').appendChild(document.createElement('p'));
        if (err.undecodable) say(p, 'imageFailed', { view: { key: view }, why: { key: 'imageUndecodable' } }, 'error');
        else {
          const k = errorKey(err, 'image');
          say(p, 'imageFailed', { view: { key: view }, why: { key: k } }, 'error', detailFor(err, k));
        }
        return false;
      }
    }),
  );
  return results.every(Boolean);
}

async function showMandate(d, container, stale) {
  if (!d.mandate_signed) {
    say('mandate-message', 'mandateNotSigned', {}, 'error');
    return false;
  }
  let data;
  try {
    data = new Uint8Array(await (await call(`/review/submissions/${d.entry_id}/mandate`)).arrayBuffer());
  } catch (err) {
    if (stale()) return false;
    const k = errorKey(err, 'mandate');
    say('mandate-message', 'mandateFailed', { why: { key: k } }, 'error', detailFor(err, k));
    return false;
  }
  try {
    // Loaded when first needed: should pdf.js fail to load, the rest of the page still works and says so here.
    const { renderPdf } = await import('./pdf-view.js');
    const { pages, shown } = await renderPdf(data, container, (n) => t('mandateFrame', { n }));
    if (stale()) return false;
    if (shown < pages) {
      say('mandate-message', 'mandateTooLong', { shown, pages }, 'error');
      return false;
    }
    say('mandate-message', 'mandateShown', { pages }, 'hint');
    $('zoom').hidden = false;
    return true;
  } catch (err) {
    if (!stale()) say('mandate-message', 'mandateUnreadable', { why: String(err?.message ?? err) }, 'error');
    return false;
  }
}

async function decide(approved) {
  const reason = $('reason').value.trim();
  if (!approved && !reason) {
    say('outcome', 'reasonRequired', {}, 'error');
    $('reason').focus();
    return;
  }
  const before = { approve: !$('approve').disabled, reject: !$('reject').disabled };
  const { entry_id: entryId } = current.item;
  const mine = seq;
  setButtons({ approve: false, reject: false });
  say('outcome', 'deciding');
  try {
    const d = await (
      await call(`/entry/${entryId}/decision`, {
        method: 'POST',
        body: JSON.stringify({ approved, ...(reason && { reason }) }),
      })
    ).json();
    queue = queue.filter((s) => s.entry_id !== entryId);
    renderQueue();
    if (mine === seq) say('outcome', 'recorded', { decision: { key: d.decision }, at: { date: d.decided_at } }, 'ok');
  } catch (err) {
    if (mine === seq) {
      sayError('outcome', err);
      // Decided elsewhere, or nothing left to decide: the buttons stay closed. Anything else may be tried again.
      if (err.status !== 409 && err.status !== 404) setButtons(before);
    }
  }
  // Whatever the outcome, the queue as it is now: a submission decided here or elsewhere leaves it.
  await loadQueue();
}

/** The mandate's page size: the frame's width, or larger (the frame then scrolls) for a narrow screen. */
function setZoom(z) {
  const pages = $('mandate');
  const before = Number(pages.dataset.zoom || 1);
  pages.dataset.zoom = z;
  for (const b of $('zoom').querySelectorAll('button')) b.setAttribute('aria-pressed', String(b.dataset.zoom === z));
  // Keep the same part of the page in view.
  const k = Number(z) / before;
  pages.scrollLeft *= k;
  pages.scrollTop *= k;
}

$('login').onsubmit = (e) => {
  e.preventDefault();
  key = $('key').value;
  sessionStorage.setItem('operator-key', key);
  loadQueue();
};
$('lang-switch').onclick = () => {
  lang = lang === 'fr' ? 'en' : 'fr';
  try {
    localStorage.setItem('review-lang', lang);
  } catch {
    // storage blocked: the switch holds for this page only
  }
  const url = new URL(location.href);
  url.searchParams.set('lang', lang);
  history.replaceState(null, '', url);
  applyLang();
};
for (const b of $('zoom').querySelectorAll('button')) b.onclick = () => setZoom(b.dataset.zoom);
$('approve').onclick = () => decide(true);
$('reject').onclick = () => decide(false);
applyLang();
if (key) loadQueue();
