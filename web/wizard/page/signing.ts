// Step 3: the mandate, drawn in the page by pdf.js, signed by drawing (signature_pad), by typing one's name, or
// replaced by the signed PDF uploaded.
import SignaturePad from 'signature_pad';
import { ApiError, answer } from '../../page-kit/api';
import { byId } from '../../page-kit/dom';
import type { Vars } from '../../page-kit/i18n';
import { apiBase, base64Of, busy, checked, client, errorKey, loaded, onRef, session, setError, t } from './session';

const MAX_BYTES = 4 * 1024 * 1024;
let pad: SignaturePad | undefined;
let shownMandate = '';

export const signerName = (): string => [loaded().signer.given, loaded().signer.surname].filter(Boolean).join(' ');
const normalised = (s: string) =>
  s.normalize('NFC').replace(/[’`]/g, "'").replace(/\s+/g, ' ').trim().toLocaleLowerCase('fr');

/** The mandate as it stands (blank, or as signed), linked and drawn; the pad sized once it is on screen. */
export function showMandate(): void {
  const { lang } = session;
  const version = loaded().signed ?? 'blank';
  const url = `${apiBase}/agreement?lang=${lang}&v=${version}`;
  byId<HTMLAnchorElement>('mandate-link').href = url;
  if (shownMandate !== url) void drawMandate((shownMandate = url));
  if (!loaded().signed) setTimeout(sizePad);
}

/** The mandate drawn by pdf.js, page by page at the screen's width: a phone's browser often shows no PDF inline. */
async function drawMandate(url: string): Promise<void> {
  const box = byId('mandate-pages');
  const pages = document.createElement('div'); // a later drawing (the language switched) replaces this one
  box.replaceChildren(pages);
  box.setAttribute('aria-busy', 'true');
  setError('mandate-error');
  try {
    const query = { lang: session.lang };
    const pdf = await answer(
      client.GET('/reg/{ref}/api/agreement', { params: { ...onRef, query }, parseAs: 'arrayBuffer' }),
    );
    const { renderPdf } = await import('../../page-kit/pdf-view');
    await renderPdf(new Uint8Array(pdf), pages, (n) => t('mandatePage', { n }));
  } catch {
    if (shownMandate === url) setError('mandate-error', 'mandateUnavailable');
  } finally {
    if (shownMandate === url) box.setAttribute('aria-busy', 'false');
  }
}

/** The pad's bitmap follows its displayed size and the screen's pixel ratio, or strokes land off the pointer. */
function sizePad(): void {
  const canvas = byId<HTMLCanvasElement>('pad');
  if (!canvas.offsetWidth) return;
  const ratio = Math.max(window.devicePixelRatio || 1, 1);
  const data = pad?.toData();
  canvas.width = canvas.offsetWidth * ratio;
  canvas.height = canvas.offsetHeight * ratio;
  canvas.getContext('2d')?.scale(ratio, ratio);
  pad ??= new SignaturePad(canvas, { penColor: '#0d1b5e', minWidth: 0.8, maxWidth: 2.6 });
  pad.clear();
  if (data) pad.fromData(data);
}

/** The signing step's controls; `next` moves on once signed, `refresh` reads the progress again. */
export function setUpSigning(next: (step: number) => void, refresh: () => Promise<void>): void {
  const typed = byId<HTMLInputElement>('typed-name');
  typed.addEventListener('input', () => (byId('typed-preview').textContent = typed.value));
  for (const r of document.querySelectorAll<HTMLInputElement>('input[name="sign-mode"]')) {
    r.addEventListener('change', () => {
      for (const m of ['draw', 'type', 'upload']) byId(`mode-${m}`).hidden = m !== checked('sign-mode');
      if (checked('sign-mode') === 'draw') sizePad();
    });
  }
  window.addEventListener('resize', () => session.current === 3 && sizePad());
  byId('pad-clear').addEventListener('click', () => pad?.clear());

  const consent = byId<HTMLInputElement>('sign-ok');
  byId('sign-button').addEventListener('click', (e) => {
    setError('sign-error');
    setError('pdf-error');
    setError('sign-ok-error', consent.checked ? undefined : 'mustConfirm');
    if (!consent.checked) return void consent.focus();
    void busy(e.currentTarget as HTMLElement, async () => {
      try {
        if (!(await sign())) return;
        await refresh();
        next(4);
      } catch (err) {
        setError('sign-error', errorKey(err));
        // The mandate was issued again (the company's details changed): show the new one, to be read and confirmed.
        if (err instanceof ApiError && err.code === 'mandate-replaced') await refresh();
      }
    });
  });
}

/** A step's refusal before anything is sent: its message shown. */
function refused(id: string, key: string, vars?: Vars): false {
  setError(id, key, vars);
  return false;
}

/** Signs as the chosen way asks; false when something is missing first (its message then shown). */
async function sign(): Promise<boolean> {
  const mandateNumber = loaded().mandate_number;
  const params = { ...onRef, query: { lang: session.lang } };
  const mode = checked('sign-mode');
  if (mode === 'draw') {
    if (!pad || pad.isEmpty()) return refused('sign-error', 'drawFirst');
    const signature = pad.toDataURL('image/png').split(',')[1];
    await answer(client.POST('/reg/{ref}/api/sign', { params, body: { signature, mandate_number: mandateNumber } }));
  } else if (mode === 'type') {
    // Typing one's own name is the act of signing; the mandate then shows the recorded name in handwriting.
    if (normalised(byId<HTMLInputElement>('typed-name').value) !== normalised(signerName()))
      return refused('typed-error', 'typeMismatch', { name: signerName() });
    setError('typed-error');
    await answer(client.POST('/reg/{ref}/api/sign', { params, body: { mandate_number: mandateNumber } }));
  } else {
    const file = byId<HTMLInputElement>('file-pdf').files?.[0];
    if (!file) return refused('pdf-error', 'chooseFile');
    if (file.type !== 'application/pdf') return refused('pdf-error', 'wrongPdf');
    if (file.size > MAX_BYTES) return refused('pdf-error', 'tooLarge');
    try {
      await answer(client.POST('/reg/{ref}/api/agreement', { params: onRef, body: { data: await base64Of(file) } }));
    } catch (err) {
      return refused('pdf-error', errorKey(err));
    }
  }
  return true;
}
