// What the wizard's parts share: the signer's language, the progress the server keeps (re-read after each step),
// the typed calls to /reg/{ref}/api, and messages in the page's language.
import { ApiError, answer, apiClient } from '../../page-kit/api';
import { byId } from '../../page-kit/dom';
import { pickLang, translator, type Lang, type Vars } from '../../page-kit/i18n';
import { say as sayIn } from '../../page-kit/messages';
import type { components } from '../../openapi/ours';
import { STRINGS } from './i18n';

export type WizardState = components['schemas']['WizardState'];
export type View = keyof WizardState['identity'];

// The page is /reg/{ref}/start: the ref is its only credential, and opens this entry's API alone.
const PAGE_PATH = /\/reg\/([^/]+)\/start\/?$/;
const ref = decodeURIComponent(PAGE_PATH.exec(location.pathname)?.[1] ?? '');
export const client = apiClient(PAGE_PATH);
export const onRef = { path: { ref } };
/** The API's address as the page's links give it (the mandate to open or keep). */
export const apiBase = location.pathname.replace(/\/start\/?$/, '/api');

export const session = {
  lang: pickLang('wizard-lang') as Lang,
  state: undefined as WizardState | undefined,
  /** The step on screen: 1–4, 5 once submitted, 0 before the first state arrives. */
  current: 0,
};

export const t = translator(STRINGS, () => session.lang);

/** The progress read last; the page's controls only act once it has come. */
export function loaded(): WizardState {
  if (!session.state) throw new Error('the wizard state has not been read yet');
  return session.state;
}

export async function readState(): Promise<WizardState> {
  session.state = await answer(client.GET('/reg/{ref}/api/state', { params: onRef }));
  return session.state;
}

/** Shows a message by key (a language switch translates it); no key clears it. */
export function say(id: string, key?: string, vars?: Vars): void {
  sayIn(t, byId(id), key, vars);
}

/** A field's error: the message, and the field marked invalid for assistive technology. */
export function setError(id: string, key?: string, vars?: Vars): void {
  say(id, key, vars);
  const input = byId(id).closest('.field')?.querySelector('input');
  if (input) input.setAttribute('aria-invalid', key ? 'true' : 'false');
}

/** The message key for a refusal: the server's code when we know it, else from the HTTP status. */
export function errorKey(err: unknown): string {
  const e = err instanceof ApiError ? err : new ApiError(-1);
  if (e.code && `err-${e.code}` in STRINGS.fr) return `err-${e.code}`;
  if (e.status === 413) return 'err-too-large';
  if (e.status === 415) return 'err-not-an-image';
  if (e.status === 400) return 'err-invalid';
  if (e.status === 0) return 'err-network';
  return 'err-unknown';
}

/** While a request is under way, the step's buttons cannot be pressed (no double submission, no leaving). */
export async function busy<T>(button: HTMLElement, fn: () => Promise<T>): Promise<T> {
  const buttons = [...(button.closest('section')?.querySelectorAll('button') ?? [])];
  for (const b of buttons) b.disabled = true;
  document.body.classList.add('busy');
  try {
    return await fn();
  } finally {
    for (const b of buttons) b.disabled = false;
    document.body.classList.remove('busy');
  }
}

/** A picked file as base64, as the API takes uploads. */
export const base64Of = (file: File): Promise<string> =>
  new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).split(',')[1] ?? '');
    reader.onerror = () => reject(new ApiError(0, 'bad-encoding'));
    reader.readAsDataURL(file);
  });

/** The value of the checked radio button of a group. */
export const checked = (name: string): string =>
  document.querySelector<HTMLInputElement>(`input[name="${name}"]:checked`)?.value ?? '';
