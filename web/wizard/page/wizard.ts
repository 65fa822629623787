// The registration wizard: four steps over the /reg/{ref}/api JSON API. Progress lives on the server, so a reload
// or a later visit resumes where the signer left off. No framework, no third-party request.
import { answer } from '../../page-kit/api';
import { byId, make } from '../../page-kit/dom';
import { keepLang, translateFixed } from '../../page-kit/i18n';
import { translateMessages } from '../../page-kit/messages';
import { setUpIdentity, showDocType } from './identity';
import {
  apiBase,
  busy,
  client,
  errorKey,
  loaded,
  onRef,
  readState,
  say,
  session,
  setError,
  t,
  type WizardState,
} from './session';
import { setUpSigning, showMandate, signerName } from './signing';

const SIGNER_FIELDS = ['given', 'surname', 'role', 'id_number'] as const;

function applyLang(): void {
  translateFixed(t, session.lang, byId('lang-switch'));
  // Messages already on screen (errors, upload statuses, previews) follow the language too.
  translateMessages(t);
  for (const img of document.querySelectorAll<HTMLImageElement>('img[data-view]'))
    img.alt = t('previewAlt', { view: t(img.dataset.view ?? '') });
  for (const el of document.querySelectorAll<HTMLElement>('[data-i18n-title]'))
    el.title = t(el.dataset.i18nTitle ?? '');
  for (const el of document.querySelectorAll<HTMLElement>('[data-i18n-aria-label]'))
    el.setAttribute('aria-label', t(el.dataset.i18nAriaLabel ?? ''));
  if (session.state) render();
}

async function refresh(): Promise<void> {
  await readState();
  render();
}

function stepFromState(): number {
  const state = loaded();
  if (state.submitted || state.decision?.decision === 'approved') return 5;
  if (!state.details_confirmed || state.missing.length) return 1;
  const id = state.identity;
  // After a rejection the identity images are the first thing to look at again: they are kept, and may be replaced.
  if (!(id.page || (id.front && id.back)) || (state.decision?.decision === 'rejected' && !state.signed)) return 2;
  if (!state.signed) return 3;
  return 4;
}

function go(step: number, focus = true): void {
  session.current = step;
  for (const n of [1, 2, 3, 4]) byId(`step-${n}`).hidden = n !== step;
  byId('step-done').hidden = step !== 5;
  for (const li of document.querySelectorAll<HTMLElement>('#steps li')) {
    const n = Number(li.dataset.step);
    li.classList.toggle('done', n < step);
    if (n === step) li.setAttribute('aria-current', 'step');
    else li.removeAttribute('aria-current');
  }
  if (step === 3) showMandate();
  if (focus) byId(step === 5 ? 'h-done' : `h-${step}`).focus();
}

function render(): void {
  const state = loaded();
  byId('main').setAttribute('aria-busy', 'false');
  byId('loading').hidden = true;
  byId('pa-name').textContent = state.pa_name ?? '';
  renderCompany();
  // Known signer details are shown read-only; missing ones are fields to complete.
  for (const f of SIGNER_FIELDS) {
    const input = byId<HTMLInputElement>(f);
    const known = f === 'id_number' ? state.signer.id_number_hint : state.signer[f];
    input.value = known ?? input.value;
    input.readOnly = Boolean(known);
    input.required = state.missing.includes(f);
  }
  byId<HTMLInputElement>('details-ok').checked = state.details_confirmed && !state.missing.length;
  for (const v of ['front', 'back', 'page'] as const)
    if (state.identity[v] && !byId(`${v}-status`).dataset.msg) say(`${v}-status`, 'receivedEarlier');
  if (state.identity.page && !state.identity.front) {
    document.querySelector<HTMLInputElement>('input[name="doc-type"][value="passport"]')!.checked = true;
    showDocType();
  }
  byId<HTMLInputElement>('typed-name').placeholder = signerName();
  byId('signed-note').hidden = !state.signed;
  renderSummary();
  if (session.current === 0) go(stepFromState(), false);
  else if (session.current === 3) showMandate();
}

/** The company, what the mandate entrusts (its part 4: the signer reads it before signing), an update's notice. */
function renderCompany(): void {
  const state = loaded();
  const c = state.company;
  byId('company-name').textContent = c.name;
  byId('company-siren').textContent = c.siren ?? '';
  // An address the record lacks is said to be missing (as the mandate says it), not left as a bare dash.
  byId('company-address').textContent = c.address || t('addressUnknown');
  byId('company-address').classList.toggle('unknown', !c.address);
  // A renewal: titled as an address update when it adds addresses, else as a mandate update; saying which mandate
  // it replaces, which addresses it adds and what else it states differently.
  const renewal = state.replaces;
  const variant = renewalVariant(state);
  for (const [id, key] of [
    ['doc-title', 'title'],
    ['title', 'title'],
    ['lead', 'lead'],
    ['confirm-hint', 'confirmHint'],
  ] as const) {
    const shown = `${key}${variant}`;
    const el = byId(id);
    el.dataset.i18n = shown; // a language switch keeps the variant
    el.textContent = t(shown);
  }
  byId('renewal').hidden = !renewal;
  if (renewal) {
    const changes = renewal.changed.map((c) =>
      c.was ? t('factWas', { fact: t(`fact-${c.fact}`), was: c.was }) : t(`fact-${c.fact}`),
    );
    byId('renewal').textContent = [
      t('renewalNotice', { mandate: renewal.mandate_number }),
      renewal.new_addresses.length > 0 && t('renewalAdded', { added: renewal.new_addresses.join(', ') }),
      changes.length > 0 && t('renewalChanged', { changes: changes.join(', ') }),
    ]
      .filter(Boolean)
      .join(' ');
  }
  const entrusted = state.invoicing_addresses;
  byId('entrust-scope').textContent = t(entrusted.entrust === 'all' ? 'entrustAll' : 'entrustListed');
  byId('company-addresses').replaceChildren(
    ...entrusted.addresses.map((a) => {
      const li = make('li', {
        textContent: `${a.id} — ${t(`kind_${a.kind}`)}${a.label ? ` ${t('labelled', { label: a.label })}` : ''}`,
      });
      if (renewal?.new_addresses.includes(a.id))
        li.append(' ', make('strong', { className: 'new', textContent: t('newAddress') }));
      return li;
    }),
  );
}

/** Which texts a renewal takes: an address update's when it adds addresses, else a mandate update's. */
const renewalVariant = (state: WizardState): '' | 'Renewal' | 'Change' =>
  !state.replaces ? '' : state.replaces.new_addresses.length > 0 ? 'Renewal' : 'Change';

/** Step 4's summary, the decision banner and the final status. */
function renderSummary(): void {
  const state = loaded();
  const c = state.company;
  byId('sum-company').textContent = `${c.name} (SIREN ${c.siren ?? ''})`;
  byId('sum-signer').textContent = [
    state.signer.given,
    state.signer.surname,
    state.signer.role && `— ${state.signer.role}`,
  ]
    .filter(Boolean)
    .join(' ');
  byId('sum-identity').textContent =
    state.identity.front && state.identity.back ? t('identityCard') : state.identity.page ? t('identityPassport') : '—';
  byId('sum-signature').textContent = state.signed
    ? t({ drawn: 'signedDrawn', typed: 'signedTyped', upload: 'signedUpload' }[state.signed])
    : '—';
  byId('sum-number').textContent = state.mandate_number;
  const banner = byId('banner');
  const rejected = state.decision?.decision === 'rejected' && !state.submitted;
  banner.hidden = !rejected;
  banner.classList.toggle('warn', rejected);
  // The reason is the operator's own sentence, shown on its own line: no quotes or period of ours around it.
  byId('banner-reason').textContent = rejected ? (state.decision?.reason ?? '').trim() : '';
  const status =
    state.decision?.decision === 'approved' ? (state.state === 'completed' ? 'completed' : 'approved') : 'submitted';
  byId('status').dataset.status = status;
  const renewed = renewalVariant(state);
  byId('status').textContent = t(status === 'completed' ? `status_completed${renewed}` : `status_${status}`);
  byId('done-text').textContent = status === 'submitted' ? t('doneSubmitted') : t(`doneApproved${renewed}`);
  // The signer keeps a copy of what they signed (sealed, with its audit page).
  byId<HTMLAnchorElement>('signed-link').href = `${apiBase}/agreement?lang=${session.lang}&v=submitted`;
}

// Step 1 — details
const detailsForm = byId<HTMLFormElement>('details-form');
detailsForm.addEventListener('submit', (e) => {
  e.preventDefault();
  const given: Partial<Record<(typeof SIGNER_FIELDS)[number], string>> = {};
  let ok = true;
  for (const f of SIGNER_FIELDS) {
    const input = byId<HTMLInputElement>(f);
    setError(`${f}-error`);
    if (input.readOnly) continue;
    if (input.required && !input.value.trim()) {
      setError(`${f}-error`, 'required');
      ok = false;
    }
    if (input.value.trim()) given[f] = input.value.trim();
  }
  const confirmed = byId<HTMLInputElement>('details-ok').checked;
  setError('details-ok-error', confirmed ? undefined : 'mustConfirm');
  ok &&= confirmed;
  setError('details-error');
  if (!ok) return void document.querySelector<HTMLElement>('#step-1 [aria-invalid="true"]')?.focus();
  void busy(e.submitter ?? detailsForm.querySelector('button')!, async () => {
    try {
      await answer(client.POST('/reg/{ref}/api/details', { params: onRef, body: given }));
      await refresh();
      go(stepFromState() === 1 ? 2 : Math.min(stepFromState(), 4));
    } catch (err) {
      setError('details-error', errorKey(err));
    }
  });
});

setUpIdentity(go);
setUpSigning(go, refresh);

// Step 4 — confirm
byId('confirm-button').addEventListener('click', (e) => {
  setError('confirm-error');
  void busy(e.currentTarget as HTMLElement, async () => {
    try {
      await answer(client.POST('/reg/{ref}/api/confirm', { params: onRef }));
      await refresh();
      go(5);
    } catch (err) {
      setError('confirm-error', errorKey(err));
    }
  });
});

for (const b of document.querySelectorAll<HTMLElement>('[data-back]'))
  b.addEventListener('click', () => go(Number(b.dataset.back)));

// Opened from a bundle's page (one signer's companies): the way back to it, which the page put in the address's
// fragment (never sent to the server). Only a bundle page's own address is taken.
const bundlePage = new URLSearchParams(location.hash.slice(1)).get('bundle');
if (bundlePage && /^(\/[^/?#]+)*\/reg\/bundle\/[A-Za-z0-9_-]{43}\/start$/.test(bundlePage)) {
  for (const a of document.querySelectorAll<HTMLAnchorElement>('a.bundle-back')) a.href = bundlePage;
  byId('bundle-back-top').hidden = false;
  byId('bundle-back-done').hidden = false;
}

byId('lang-switch').addEventListener('click', () => {
  session.lang = session.lang === 'fr' ? 'en' : 'fr';
  keepLang('wizard-lang', session.lang);
  applyLang();
});

applyLang();
refresh().catch((err: unknown) => {
  byId('loading').setAttribute('role', 'alert');
  say('loading', errorKey(err));
  byId('main').setAttribute('aria-busy', 'false');
});
