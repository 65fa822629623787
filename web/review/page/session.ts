// What the review page's parts share: who is signed in (the session itself is an HttpOnly cookie: no script of the
// page holds a secret), the language, the submission on screen, the typed client, and refusals worded in the
// page's language.
import { ApiError, apiClient } from '../../page-kit/api';
import { byId } from '../../page-kit/dom';
import { pickLang, translator, type Lang, type Vars } from '../../page-kit/i18n';
import { say as sayIn } from '../../page-kit/messages';
import type { components } from '../../openapi/ours';
import { STRINGS } from './i18n';

export type Listed = components['schemas']['Submissions']['list'][number];
export type Submission = components['schemas']['ReviewSubmission'];

export const session = {
  /** The operator signed in, once the API said so. */
  operator: undefined as components['schemas']['ReviewSession']['operator'] | undefined,
  lang: pickLang('review-lang') as Lang,
  /** The submission on screen. */
  current: undefined as { item: Listed; detail?: Submission } | undefined,
  /** Counts the submissions opened: a late answer for one no longer shown is told by it. */
  seq: 0,
};

export const t = translator(STRINGS, () => session.lang);
export const known = (key: string): boolean => key in STRINGS.fr;

// The page is served at …/apps/gov-fr/review/; the API it calls sits beside it, under the same root.
export const client = apiClient(/\/apps\/gov-fr\/review\/?$/, { cache: 'no-store' });

/** Shows a message by key in `el` (an id or the element), its classes replaced by `cls`; no key clears it. */
export function say<E extends HTMLElement>(
  el: string | E,
  key?: string | null,
  vars?: Vars,
  cls = '',
  detail?: string,
) {
  return sayIn(t, typeof el === 'string' ? byId(el) : el, key, vars, { cls, detail });
}

/** An API refusal as one of our sentences; `what` ('image', 'mandate') picks a closer one where there is. */
export function errorKey(err: unknown, what?: string): string {
  const status = err instanceof ApiError ? err.status : undefined;
  if (status === 0) return 'err-network';
  for (const k of [what && `err-${status}-${what}`, `err-${status}`]) if (k && known(k)) return k;
  return 'err-other';
}
/** Our sentences that say the case in full; after the others (a bare status), the API's detail says what it was. */
const GENERIC = new Set(['err-other', 'err-400']);
export const detailFor = (err: unknown, k: string): string | undefined =>
  GENERIC.has(k) && err instanceof ApiError ? err.detail : undefined;
/** An API refusal in words: ours, and the API's own detail only where ours is generic. */
export function sayError(el: string | HTMLElement, err: unknown): HTMLElement {
  const k = errorKey(err);
  return say(el, k, { status: err instanceof ApiError ? err.status : undefined }, 'error', detailFor(err, k));
}
