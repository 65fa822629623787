// Dates as the mandate's language writes them (the model form: 25/11/2026), never ISO. Written out by hand rather
// than with Intl: the text must not depend on the ICU data a Node build carries.
import type { Lang } from './texts';

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const two = (n: number) => String(n).padStart(2, '0');

/** A calendar day, YYYY-MM-DD: 25/11/2026 in French, 25 November 2026 in English. */
export function formatDay(day: string, lang: Lang): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!m) throw new Error(`not a day: ${day}`);
  const [, y, mo, d] = m;
  return lang === 'fr' ? `${d}/${mo}/${y}` : `${Number(d)} ${MONTHS[Number(mo) - 1]} ${y}`;
}

/** An instant, in UTC to the second: "25/11/2026 à 14:03:07 UTC", "25 November 2026 at 14:03:07 UTC"; undefined if unreadable. */
export function formatInstant(at: string, lang: Lang): string | undefined {
  const t = new Date(at);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(at) || Number.isNaN(t.getTime())) return undefined;
  const time = `${two(t.getUTCHours())}:${two(t.getUTCMinutes())}:${two(t.getUTCSeconds())} UTC`;
  return `${formatDay(t.toISOString().slice(0, 10), lang)} ${lang === 'fr' ? 'à' : 'at'} ${time}`;
}
