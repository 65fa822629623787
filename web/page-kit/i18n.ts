// The pages' languages: French by default, English on request (?lang=en), kept for the next visit. Every string
// comes from the page's own table, so a page never mixes languages.
export const LANGS = ['fr', 'en'] as const;
export type Lang = (typeof LANGS)[number];

/** A page's strings, by language and key (each page's i18n.ts types English against French's keys). */
export type Strings = Record<Lang, Record<string, string>>;

/** A value put in a string: text, a number, another string's key ({ key }) or a date ({ date }, ISO 8601). */
export type Value = string | number | null | undefined | { key: string } | { date: string };
export type Vars = Record<string, Value>;
export type Translate = (key: string, vars?: Vars) => string;

const isLang = (s: string | null): s is Lang => s === 'fr' || s === 'en';

/** The language asked in the address, else the one kept from an earlier visit, else French. */
export function pickLang(storageKey: string): Lang {
  const asked = new URLSearchParams(location.search).get('lang');
  if (isLang(asked)) return asked;
  try {
    const kept = localStorage.getItem(storageKey);
    if (isLang(kept)) return kept;
  } catch {
    // storage may be blocked (a third-party iframe): French by default then
  }
  return 'fr';
}

/** Keeps the language for the next visit and in the address (a reload stays in it). */
export function keepLang(storageKey: string, lang: Lang): void {
  try {
    localStorage.setItem(storageKey, lang);
  } catch {
    // not kept: the page still switches
  }
  const url = new URL(location.href);
  url.searchParams.set('lang', lang);
  history.replaceState(null, '', url);
}

export const formatDate = (iso: string, lang: Lang): string =>
  new Date(iso).toLocaleString(lang === 'fr' ? 'fr-FR' : 'en-GB', { dateStyle: 'medium', timeStyle: 'short' });

/** `t(key, vars)` over a page's strings in the language `lang()` gives now; an unknown key is shown as itself. */
export function translator(strings: Strings, lang: () => Lang): Translate {
  const t: Translate = (key, vars = {}) =>
    (strings[lang()][key] ?? strings.fr[key] ?? key).replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = vars[name];
      if (value && typeof value === 'object') return 'key' in value ? t(value.key) : formatDate(value.date, lang());
      return String(value ?? '');
    });
  return t;
}

/** Puts the page's fixed texts (data-i18n) in the language, and names the other one on the switch button. */
export function translateFixed(t: Translate, lang: Lang, langSwitch: HTMLElement): void {
  document.documentElement.lang = lang;
  for (const el of document.querySelectorAll<HTMLElement>('[data-i18n]')) el.textContent = t(el.dataset.i18n ?? '');
  langSwitch.textContent = t('switchTo');
  langSwitch.lang = lang === 'fr' ? 'en' : 'fr';
}
