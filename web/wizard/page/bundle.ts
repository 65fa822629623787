// A bundle's page (/reg/bundle/{ref}/start): one signer's companies of a campaign. The details and the identity
// document are given here once, for all of them; each company's mandate is then read, signed and submitted in its
// own wizard, opened from the list (it comes back here). Progress lives on the server: a reload resumes.
import { ApiError, answer, apiClient } from '../../page-kit/api';
import { byId, make } from '../../page-kit/dom';
import { keepLang, pickLang, translateFixed, translator, type Lang, type Vars } from '../../page-kit/i18n';
import { say as sayIn, translateMessages } from '../../page-kit/messages';
import type { components } from '../../openapi/ours';
import { STRINGS } from './i18n';

type BundleState = components['schemas']['BundleState'];
type Company = BundleState['companies'][number];
type View = 'front' | 'back' | 'page';

const PAGE_PATH = /\/reg\/bundle\/([^/]+)\/start\/?$/;
const ref = decodeURIComponent(PAGE_PATH.exec(location.pathname)?.[1] ?? '');
const client = apiClient(PAGE_PATH);
const onRef = { path: { ref } };
const MAX_BYTES = 4 * 1024 * 1024;

let lang = pickLang('wizard-lang') as Lang;
let state: BundleState | undefined;
const t = translator(STRINGS, () => lang);
const say = (id: string, key?: string, vars?: Vars) => sayIn(t, byId(id), key, vars);

function errorKey(err: unknown): string {
  const e = err instanceof ApiError ? err : new ApiError(-1);
  if (e.code && `err-${e.code}` in STRINGS.fr) return `err-${e.code}`;
  if (e.status === 413) return 'err-too-large';
  if (e.status === 0) return 'err-network';
  return e.status === 400 ? 'err-invalid' : 'err-unknown';
}

const isPassport = () =>
  document.querySelector<HTMLInputElement>('input[name="doc-type"]:checked')?.value === 'passport';
const identityDone = (s: BundleState) => (isPassport() ? s.identity.page : s.identity.front && s.identity.back);
const toSign = (s: BundleState) => s.companies.filter((c) => c.link && !c.submitted && c.decision !== 'approved');

async function refresh(): Promise<void> {
  state = await answer(client.GET('/reg/bundle/{ref}/api/state', { params: onRef }));
  render();
}

function render(): void {
  if (!state) return;
  const s = state;
  byId('main').setAttribute('aria-busy', 'false');
  byId('loading').hidden = true;
  byId('pa-name').textContent = s.pa_name;
  byId('lead').textContent = t('bundleLead', { n: String(s.companies.length) });
  const signer = s.signer;
  byId('signer-name').textContent = signer
    ? [signer.given, signer.surname].filter(Boolean).join(' ') +
      (signer.id_number_hint ? ` (${signer.id_number_hint})` : '')
    : t('bundlePreparing');
  byId('id-number-field').hidden = !s.missing.includes('id_number');
  const detailsDone = s.details_confirmed && s.missing.length === 0;
  byId('details-done').hidden = !detailsDone;
  byId('details-button').hidden = detailsDone;
  byId<HTMLInputElement>('details-ok').checked ||= detailsDone;
  for (const v of ['front', 'back', 'page'] as const)
    if (s.identity[v] && !byId(`${v}-status`).dataset.msg) say(`${v}-status`, 'receivedEarlier');
  if (s.identity.page && !s.identity.front)
    document.querySelector<HTMLInputElement>('input[name="doc-type"][value="passport"]')!.checked = true;
  showDocType();
  byId('you').hidden = false;
  byId('identity').hidden = false;
  byId('companies-step').hidden = false;
  const ready = detailsDone && identityDone(s);
  byId('companies-hint').textContent = t(ready ? 'bundleSignEach' : 'bundleFirst', { n: String(toSign(s).length) });
  byId('companies').replaceChildren(...s.companies.map((c) => companyItem(c, ready)));
}

/** A company of the list: its name and SIREN, how far it is, and the way to its own wizard while it waits for you. */
function companyItem(c: Company, ready: boolean): HTMLLIElement {
  const status = c.decision ?? (c.submitted ? 'submitted' : c.link ? (c.signed ? 'signed' : 'toSign') : 'preparing');
  const li = make('li', { className: `company ${status}` });
  li.append(
    make('strong', { textContent: c.name ?? c.siren }),
    make('span', { className: 'siren', textContent: ` SIREN ${c.siren}` }),
    make('span', { className: 'badge', textContent: t(`bundleStatus_${status}`) }),
  );
  if (c.link && !c.submitted && c.decision !== 'approved') {
    // Its own wizard, in this language, with the way back here.
    const url = new URL(c.link, location.href);
    url.searchParams.set('lang', lang);
    url.hash = `bundle=${encodeURIComponent(location.pathname)}`;
    const a = make('a', { className: 'button primary', href: url.pathname + url.search + url.hash });
    a.textContent = t(c.signed ? 'bundleSubmit' : 'bundleReadSign');
    if (!ready) {
      a.setAttribute('aria-disabled', 'true');
      a.tabIndex = -1;
    }
    li.append(a);
  }
  return li;
}

function showDocType(): void {
  byId('card-uploads').hidden = isPassport();
  byId('passport-uploads').hidden = !isPassport();
}

byId<HTMLFormElement>('details-form').addEventListener('submit', (e) => {
  e.preventDefault();
  const ok = byId<HTMLInputElement>('details-ok').checked;
  say('details-ok-error', ok ? undefined : 'mustConfirm');
  const idNumber = byId<HTMLInputElement>('id_number');
  const needed = !byId('id-number-field').hidden && !idNumber.value.trim();
  say('id_number-error', needed ? 'required' : undefined);
  say('details-error');
  if (!ok || needed) return;
  const button = byId<HTMLButtonElement>('details-button');
  button.disabled = true;
  const body = idNumber.value.trim() ? { id_number: idNumber.value.trim() } : {};
  answer(client.POST('/reg/bundle/{ref}/api/details', { params: onRef, body }))
    .then(refresh)
    .catch((err: unknown) => say('details-error', errorKey(err)))
    .finally(() => (button.disabled = false));
});

for (const r of document.querySelectorAll<HTMLInputElement>('input[name="doc-type"]'))
  r.addEventListener('change', render);

for (const view of ['front', 'back', 'page'] as View[]) {
  const input = byId<HTMLInputElement>(`file-${view}`);
  input.addEventListener('change', () => {
    const file = input.files?.[0];
    say(`${view}-error`);
    say(`${view}-status`);
    if (!file) return;
    if (!['image/png', 'image/jpeg'].includes(file.type)) return say(`${view}-error`, 'wrongType');
    if (file.size > MAX_BYTES) return say(`${view}-error`, 'tooLarge');
    say(`${view}-status`, 'uploading');
    const reader = new FileReader();
    reader.onload = () => {
      const data = String(reader.result).split(',')[1] ?? '';
      answer(client.POST('/reg/bundle/{ref}/api/identity', { params: onRef, body: { view, data } }))
        .then(() => (say(`${view}-status`, 'received'), refresh()))
        .catch((err: unknown) => (say(`${view}-status`), say(`${view}-error`, errorKey(err))));
    };
    reader.onerror = () => say(`${view}-error`, 'err-bad-encoding');
    reader.readAsDataURL(file);
  });
}

function applyLang(): void {
  translateFixed(t, lang, byId('lang-switch'));
  translateMessages(t);
  render();
}

byId('lang-switch').addEventListener('click', () => {
  lang = lang === 'fr' ? 'en' : 'fr';
  keepLang('wizard-lang', lang);
  applyLang();
});

applyLang();
refresh().catch((err: unknown) => {
  byId('loading').setAttribute('role', 'alert');
  say('loading', errorKey(err));
  byId('main').setAttribute('aria-busy', 'false');
});
