// Messages shown by key and kept on their element (data-msg, data-vars), so that switching the language translates
// what is already on screen: errors, statuses, outcomes.
import { make } from './dom';
import type { Translate, Vars } from './i18n';

export interface Shown {
  /** Replaces the element's classes (else they stay as the page has them). */
  cls?: string;
  /** The API's own (English) words, where the page has no sentence of its own for the case: shown labelled, apart. */
  detail?: string;
}

/** Shows the message `key` in `el`; no key clears it. Returns the element. */
export function say<E extends HTMLElement>(
  t: Translate,
  el: E,
  key?: string | null,
  vars?: Vars,
  shown: Shown = {},
): E {
  if (shown.cls !== undefined) el.className = shown.cls;
  if (!key) {
    delete el.dataset.msg;
    delete el.dataset.vars;
    delete el.dataset.detail;
    el.textContent = '';
    return el;
  }
  el.dataset.msg = key;
  el.dataset.vars = JSON.stringify(vars ?? {});
  if (shown.detail) el.dataset.detail = shown.detail;
  else delete el.dataset.detail;
  renderMessage(t, el);
  return el;
}

function renderMessage(t: Translate, el: HTMLElement): void {
  el.textContent = t(el.dataset.msg ?? '', JSON.parse(el.dataset.vars ?? '{}') as Vars);
  if (!el.dataset.detail) return;
  const small = make('small', { className: 'api-detail' });
  small.append(`${t('apiDetail')} `, make('span', { lang: 'en', textContent: el.dataset.detail }));
  el.append(small);
}

/** Every message on screen again, in the language `t` speaks now. */
export function translateMessages(t: Translate): void {
  for (const el of document.querySelectorAll<HTMLElement>('[data-msg]')) renderMessage(t, el);
}
