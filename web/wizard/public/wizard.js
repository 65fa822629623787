// The registration wizard: four steps over the /reg/{ref}/api JSON API. Progress lives on the server, so a reload
// or a later visit resumes where the signer left off. No framework, no third-party request.
import SignaturePad from './signature_pad.js';
import { STRINGS } from './i18n.js';

const MAX_BYTES = 4 * 1024 * 1024;
const IMAGE_TYPES = ['image/png', 'image/jpeg'];
const apiBase = location.pathname.replace(/\/start\/?$/, '/api');
const $ = (id) => document.getElementById(id);

let lang = pickLang();
let state;
let current = 0;
let pad;

function pickLang() {
  const asked = new URLSearchParams(location.search).get('lang');
  if (asked === 'en' || asked === 'fr') return asked;
  try {
    const kept = localStorage.getItem('wizard-lang');
    if (kept === 'en' || kept === 'fr') return kept;
  } catch {
    // storage may be blocked in a third-party iframe: French by default then
  }
  return 'fr';
}

const t = (key, vars = {}) =>
  (STRINGS[lang][key] ?? STRINGS.fr[key] ?? key).replace(/\{(\w+)\}/g, (_, k) => vars[k] ?? '');

function applyLang() {
  document.documentElement.lang = lang;
  for (const el of document.querySelectorAll('[data-i18n]')) el.textContent = t(el.dataset.i18n);
  // Messages already on screen (errors, upload statuses, previews) follow the language too.
  for (const el of document.querySelectorAll('[data-msg]'))
    el.textContent = t(el.dataset.msg, JSON.parse(el.dataset.vars ?? '{}'));
  for (const img of document.querySelectorAll('img[data-view]'))
    img.alt = t('previewAlt', { view: t(img.dataset.view) });
  for (const el of document.querySelectorAll('[data-i18n-title]')) el.title = t(el.dataset.i18nTitle);
  for (const el of document.querySelectorAll('[data-i18n-aria-label]'))
    el.setAttribute('aria-label', t(el.dataset.i18nAriaLabel));
  const other = lang === 'fr' ? 'en' : 'fr';
  const sw = $('lang-switch');
  sw.textContent = t('switchTo');
  sw.lang = other;
  if (state) render();
}

/** Calls the wizard API; refusals become { status, code } errors, shown through errorKey in the page's language. */
async function api(method, path, body) {
  let res;
  try {
    res = await fetch(`${apiBase}/${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw { status: 0, code: 'network' };
  }
  if (res.ok) return res.status === 204 ? undefined : res.json();
  let code;
  try {
    code = (await res.json()).code;
  } catch {
    // not a problem document
  }
  throw { status: res.status, code };
}

/** The message key for a refusal: the server's code when we know it, else from the HTTP status. */
function errorKey(err) {
  if (err?.code && STRINGS.fr[`err-${err.code}`]) return `err-${err.code}`;
  if (err?.status === 413) return 'err-too-large';
  if (err?.status === 415) return 'err-not-an-image';
  if (err?.status === 400) return 'err-invalid';
  if (err?.status === 0) return 'err-network';
  return 'err-unknown';
}

/** Shows a message by key (kept on the element, so a language switch translates it); no key clears it. */
function say(id, key, vars) {
  const el = $(id);
  if (key) {
    el.dataset.msg = key;
    el.dataset.vars = JSON.stringify(vars ?? {});
    el.textContent = t(key, vars);
  } else {
    delete el.dataset.msg;
    el.textContent = '';
  }
}

function setError(id, key, vars) {
  say(id, key, vars);
  const input = $(id).closest('.field')?.querySelector('input');
  if (input) input.setAttribute('aria-invalid', key ? 'true' : 'false');
}

/** While a request is under way, the step's buttons cannot be pressed (no double submission, no leaving). */
async function busy(button, fn) {
  const buttons = [...button.closest('section').querySelectorAll('button')];
  for (const b of buttons) b.disabled = true;
  document.body.classList.add('busy');
  try {
    return await fn();
  } finally {
    for (const b of buttons) b.disabled = false;
    document.body.classList.remove('busy');
  }
}

const base64Of = (file) =>
  new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).split(',')[1] ?? '');
    reader.onerror = () => reject({ status: 0, code: 'bad-encoding' });
    reader.readAsDataURL(file);
  });

async function refresh() {
  state = await api('GET', 'state');
  render();
}

function stepFromState() {
  if (state.submitted || state.decision?.decision === 'approved') return 5;
  if (!state.details_confirmed || state.missing.length) return 1;
  const id = state.identity;
  // After a rejection the identity images are the first thing to look at again: they are kept, and may be replaced.
  if (!(id.page || (id.front && id.back)) || (state.decision?.decision === 'rejected' && !state.signed)) return 2;
  if (!state.signed) return 3;
  return 4;
}

function go(step, focus = true) {
  current = step;
  for (const n of [1, 2, 3, 4]) $(`step-${n}`).hidden = n !== step;
  $('step-done').hidden = step !== 5;
  for (const li of document.querySelectorAll('#steps li')) {
    const n = Number(li.dataset.step);
    li.classList.toggle('done', n < step);
    if (n === step) li.setAttribute('aria-current', 'step');
    else li.removeAttribute('aria-current');
  }
  if (step === 3) showMandate();
  if (focus) $(step === 5 ? 'h-done' : `h-${step}`).focus();
}

function render() {
  $('main').setAttribute('aria-busy', 'false');
  $('loading').hidden = true;
  $('pa-name').textContent = state.pa_name ?? '';
  const c = state.company;
  $('company-name').textContent = c.name;
  $('company-siren').textContent = c.siren ?? '';
  // An address the record lacks is said to be missing (as the mandate says it), not left as a bare dash.
  $('company-address').textContent = c.address || t('addressUnknown');
  $('company-address').classList.toggle('unknown', !c.address);
  // An address update: titled as such, saying which mandate it replaces and which addresses it adds.
  const renewal = state.replaces;
  for (const [id, key] of [
    ['doc-title', 'title'],
    ['title', 'title'],
    ['lead', 'lead'],
    ['confirm-hint', 'confirmHint'],
  ]) {
    $(id).dataset.i18n = renewal ? `${key}Renewal` : key;
    $(id).textContent = t($(id).dataset.i18n);
  }
  $('renewal').hidden = !renewal;
  if (renewal)
    $('renewal').textContent = t('renewalNotice', {
      mandate: renewal.mandate_number,
      added: renewal.new_addresses.join(', '),
    });
  // What the mandate entrusts (its part 4): the signer reads it before signing.
  const entrusted = state.invoicing_addresses;
  $('entrust-scope').textContent = t(entrusted.entrust === 'all' ? 'entrustAll' : 'entrustListed');
  $('company-addresses').replaceChildren(
    ...entrusted.addresses.map((a) => {
      const li = document.createElement('li');
      li.textContent = `${a.id} — ${t(`kind_${a.kind}`)}${a.label ? ` ${t('labelled', { label: a.label })}` : ''}`;
      if (renewal?.new_addresses.includes(a.id)) {
        const mark = document.createElement('strong');
        mark.className = 'new';
        mark.textContent = t('newAddress');
        li.append(' ', mark);
      }
      return li;
    }),
  );
  // Known signer details are shown read-only; missing ones are fields to complete.
  for (const f of ['given', 'surname', 'role', 'id_number']) {
    const input = $(f);
    const known = f === 'id_number' ? state.signer.id_number_hint : state.signer[f];
    input.value = known ?? input.value;
    input.readOnly = Boolean(known);
    input.required = state.missing.includes(f);
  }
  $('details-ok').checked = state.details_confirmed && !state.missing.length;
  for (const v of ['front', 'back', 'page'])
    if (state.identity[v] && !$(`${v}-status`).dataset.msg) say(`${v}-status`, 'receivedEarlier');
  if (state.identity.page && !state.identity.front) {
    document.querySelector('input[name="doc-type"][value="passport"]').checked = true;
    showDocType();
  }
  $('typed-name').placeholder = signerName();
  $('signed-note').hidden = !state.signed;
  // Summary
  $('sum-company').textContent = `${c.name} (SIREN ${c.siren ?? ''})`;
  $('sum-signer').textContent = [
    state.signer.given,
    state.signer.surname,
    state.signer.role && `— ${state.signer.role}`,
  ]
    .filter(Boolean)
    .join(' ');
  $('sum-identity').textContent =
    state.identity.front && state.identity.back ? t('identityCard') : state.identity.page ? t('identityPassport') : '—';
  $('sum-signature').textContent = state.signed
    ? t({ drawn: 'signedDrawn', typed: 'signedTyped', upload: 'signedUpload' }[state.signed])
    : '—';
  $('sum-number').textContent = state.mandate_number;
  // Decision banner and final status
  const banner = $('banner');
  const rejected = state.decision?.decision === 'rejected' && !state.submitted;
  banner.hidden = !rejected;
  banner.classList.toggle('warn', rejected);
  // The reason is the operator's own sentence, shown on its own line: no quotes or period of ours around it.
  $('banner-reason').textContent = rejected ? (state.decision.reason ?? '').trim() : '';
  const status =
    state.decision?.decision === 'approved' ? (state.state === 'completed' ? 'completed' : 'approved') : 'submitted';
  $('status').dataset.status = status;
  const renewed = state.replaces ? 'Renewal' : '';
  $('status').textContent = t(status === 'completed' ? `status_completed${renewed}` : `status_${status}`);
  $('done-text').textContent = status === 'submitted' ? t('doneSubmitted') : t(`doneApproved${renewed}`);
  // The signer keeps a copy of what they signed (sealed, with its audit page).
  $('signed-link').href = `${apiBase}/agreement?lang=${lang}&v=submitted`;
  if (current === 0) go(stepFromState(), false);
  else if (current === 3) showMandate();
}

let shownMandate = '';
function showMandate() {
  const url = `${apiBase}/agreement?lang=${lang}&v=${state.signed ?? 'blank'}`;
  $('mandate-link').href = url;
  if (shownMandate !== url) void drawMandate((shownMandate = url));
  if (!state.signed) setTimeout(sizePad);
}

/** The mandate drawn by pdf.js, page by page at the screen's width: a phone's browser often shows no PDF inline. */
async function drawMandate(url) {
  const box = $('mandate-pages');
  const pages = document.createElement('div'); // a later drawing (the language switched) replaces this one
  box.replaceChildren(pages);
  box.setAttribute('aria-busy', 'true');
  setError('mandate-error');
  try {
    const res = await fetch(url);
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    const data = new Uint8Array(await res.arrayBuffer());
    const { renderPdf } = await import('./pdf-view.js');
    await renderPdf(data, pages, (n) => t('mandatePage', { n }));
  } catch {
    if (shownMandate === url) setError('mandate-error', 'mandateUnavailable');
  } finally {
    if (shownMandate === url) box.setAttribute('aria-busy', 'false');
  }
}

// Step 1 — details
$('details-form').addEventListener('submit', (e) => {
  e.preventDefault();
  const given = {};
  let ok = true;
  for (const f of ['given', 'surname', 'role', 'id_number']) {
    const input = $(f);
    setError(`${f}-error`);
    if (input.readOnly) continue;
    if (input.required && !input.value.trim()) {
      setError(`${f}-error`, 'required');
      ok = false;
    }
    if (input.value.trim()) given[f] = input.value.trim();
  }
  setError('details-ok-error', $('details-ok').checked ? undefined : 'mustConfirm');
  ok &&= $('details-ok').checked;
  setError('details-error');
  if (!ok) return void document.querySelector('#step-1 [aria-invalid="true"]')?.focus();
  busy(e.submitter ?? $('details-form').querySelector('button'), async () => {
    try {
      await api('POST', 'details', given);
      await refresh();
      go(stepFromState() === 1 ? 2 : Math.min(stepFromState(), 4));
    } catch (err) {
      setError('details-error', errorKey(err));
    }
  });
});

// Step 2 — identity document
function showDocType() {
  const passport = document.querySelector('input[name="doc-type"]:checked').value === 'passport';
  $('card-uploads').hidden = passport;
  $('passport-uploads').hidden = !passport;
}
for (const r of document.querySelectorAll('input[name="doc-type"]')) {
  r.addEventListener('change', () => {
    showDocType();
    if (state && identityComplete()) setError('identity-error');
  });
}

// Uploads of one view go one after the other, so the server keeps the file the preview shows.
const uploads = { front: Promise.resolve(), back: Promise.resolve(), page: Promise.resolve() };
let pending = 0; // uploads picked and not answered yet

const isPassport = () => document.querySelector('input[name="doc-type"]:checked').value === 'passport';
const identityComplete = () => (isPassport() ? state.identity.page : state.identity.front && state.identity.back);
const VIEW_LABEL = { front: 'front', back: 'back', page: 'passportPage' };

for (const view of ['front', 'back', 'page']) {
  $(`file-${view}`).addEventListener('change', (e) => {
    const file = e.target.files[0];
    const img = $(`preview-${view}`);
    setError(`${view}-error`);
    say(`${view}-status`);
    if (!file) return;
    const refuse = !IMAGE_TYPES.includes(file.type) ? 'wrongType' : file.size > MAX_BYTES ? 'tooLarge' : undefined;
    if (refuse) {
      img.hidden = true;
      return setError(`${view}-error`, refuse);
    }
    img.src = URL.createObjectURL(file);
    img.dataset.view = VIEW_LABEL[view];
    img.alt = t('previewAlt', { view: t(VIEW_LABEL[view]) });
    img.hidden = false;
    say(`${view}-status`, 'uploading');
    pending++;
    uploads[view] = uploads[view].then(async () => {
      try {
        await api('POST', 'identity', { view, data: await base64Of(file) });
        if (e.target.files[0] !== file) return; // a newer pick is on its way
        say(`${view}-status`, 'received');
        state.identity[view] = true;
        // "Add the front and back…" goes as soon as what it asked for is here.
        if (identityComplete()) setError('identity-error');
      } catch (err) {
        if (e.target.files[0] !== file) return;
        say(`${view}-status`);
        img.hidden = true;
        setError(`${view}-error`, errorKey(err));
      } finally {
        pending--;
      }
    });
  });
}

$('identity-next').addEventListener('click', (e) => {
  setError('identity-error');
  // Pressed while an image is still on its way: wait for it (buttons held, a visible note), then decide.
  busy(e.currentTarget, async () => {
    if (pending) say('identity-wait', 'waitUploads');
    try {
      while (pending) await Promise.all(Object.values(uploads));
    } finally {
      say('identity-wait');
    }
    const complete = identityComplete();
    setError('identity-error', complete ? undefined : 'identityIncomplete');
    if (complete) go(state.signed ? 4 : 3);
  });
});

// Step 3 — signature
const signerName = () => [state.signer.given, state.signer.surname].filter(Boolean).join(' ');
const normalised = (s) => s.normalize('NFC').replace(/[’`]/g, "'").replace(/\s+/g, ' ').trim().toLocaleLowerCase('fr');
$('typed-name').addEventListener('input', () => ($('typed-preview').textContent = $('typed-name').value));

function signMode() {
  return document.querySelector('input[name="sign-mode"]:checked').value;
}
for (const r of document.querySelectorAll('input[name="sign-mode"]')) {
  r.addEventListener('change', () => {
    for (const m of ['draw', 'type', 'upload']) $(`mode-${m}`).hidden = m !== signMode();
    if (signMode() === 'draw') sizePad();
  });
}

/** The pad's bitmap follows its displayed size and the screen's pixel ratio, or strokes land off the pointer. */
function sizePad() {
  const canvas = $('pad');
  if (!canvas.offsetWidth) return;
  const ratio = Math.max(window.devicePixelRatio || 1, 1);
  const data = pad?.toData();
  canvas.width = canvas.offsetWidth * ratio;
  canvas.height = canvas.offsetHeight * ratio;
  canvas.getContext('2d').scale(ratio, ratio);
  pad ??= new SignaturePad(canvas, { penColor: '#0d1b5e', minWidth: 0.8, maxWidth: 2.6 });
  pad.clear();
  if (data) pad.fromData(data);
}
window.addEventListener('resize', () => current === 3 && sizePad());
$('pad-clear').addEventListener('click', () => pad?.clear());

$('sign-button').addEventListener('click', (e) => {
  setError('sign-error');
  setError('pdf-error');
  setError('sign-ok-error', $('sign-ok').checked ? undefined : 'mustConfirm');
  if (!$('sign-ok').checked) return void $('sign-ok').focus();
  const mode = signMode();
  busy(e.currentTarget, async () => {
    try {
      if (mode === 'draw') {
        if (!pad || pad.isEmpty()) return setError('sign-error', 'drawFirst');
        await api('POST', `sign?lang=${lang}`, {
          signature: pad.toDataURL('image/png').split(',')[1],
          mandate_number: state.mandate_number,
        });
      } else if (mode === 'type') {
        // Typing one's own name is the act of signing; the mandate then shows the recorded name in handwriting.
        if (normalised($('typed-name').value) !== normalised(signerName()))
          return setError('typed-error', 'typeMismatch', { name: signerName() });
        setError('typed-error');
        await api('POST', `sign?lang=${lang}`, { mandate_number: state.mandate_number });
      } else {
        const file = $('file-pdf').files[0];
        if (!file) return setError('pdf-error', 'chooseFile');
        if (file.type !== 'application/pdf') return setError('pdf-error', 'wrongPdf');
        if (file.size > MAX_BYTES) return setError('pdf-error', 'tooLarge');
        try {
          await api('POST', 'agreement', { data: await base64Of(file) });
        } catch (err) {
          return setError('pdf-error', errorKey(err));
        }
      }
      await refresh();
      go(4);
    } catch (err) {
      setError('sign-error', errorKey(err));
      // The mandate was issued again (the company's details changed): show the new one, to be read and confirmed.
      if (err.code === 'mandate-replaced') await refresh();
    }
  });
});

// Step 4 — confirm
$('confirm-button').addEventListener('click', (e) => {
  setError('confirm-error');
  busy(e.currentTarget, async () => {
    try {
      await api('POST', 'confirm');
      await refresh();
      go(5);
    } catch (err) {
      setError('confirm-error', errorKey(err));
    }
  });
});

for (const b of document.querySelectorAll('[data-back]')) b.addEventListener('click', () => go(Number(b.dataset.back)));

$('lang-switch').addEventListener('click', () => {
  lang = lang === 'fr' ? 'en' : 'fr';
  try {
    localStorage.setItem('wizard-lang', lang);
  } catch {
    // not kept: the page still switches
  }
  const url = new URL(location.href);
  url.searchParams.set('lang', lang);
  history.replaceState(null, '', url);
  applyLang();
});

applyLang();
refresh().catch((err) => {
  $('loading').setAttribute('role', 'alert');
  say('loading', errorKey(err));
  $('main').setAttribute('aria-busy', 'false');
});
