// The documents a decision rests on: the identity images and the signed mandate, drawn by pdf.js. Each says in
// words why it cannot be shown; approving needs them all on screen.
import { answer } from '../../page-kit/api';
import { byId, make } from '../../page-kit/dom';
import { client, detailFor, errorKey, say, t, type Submission } from './session';

/** The newest rejection of this registration, if any: identity images older than it were not replaced since. */
const lastRejection = (d: Submission) => d.decisions.find((x) => x.decision === 'rejected');

class Undecodable extends Error {}

/** Draws every identity image into `container`; true when all are shown. */
export async function showImages(d: Submission, container: HTMLElement, stale: () => boolean): Promise<boolean> {
  const messages = byId('image-messages');
  if (!d.identity.length) {
    say(messages.appendChild(make('p')), 'noIdentity', {}, 'error');
    return false;
  }
  const rejection = lastRejection(d);
  const results = await Promise.all(
    d.identity.map(async ({ view, uploaded_at: uploadedAt }) => {
      const figure = make('figure');
      try {
        const path = { silo_entry_id: d.entry_id, view };
        const blob = await answer(
          client.GET('/apps/gov-fr/v1/entry/{silo_entry_id}/identity/{view}', { params: { path }, parseAs: 'blob' }),
        );
        const img = make('img', { alt: t('imageAlt', { view: { key: view } }), src: URL.createObjectURL(blob) });
        img.dataset.alt = view;
        try {
          await img.decode();
        } catch {
          throw new Undecodable();
        }
        if (stale()) return false;
        const caption = make('figcaption');
        const line = (k: string, vars: Parameters<typeof say>[2], cls?: string) =>
          caption.appendChild(say(make('span'), k, vars, cls));
        line(view, {});
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
        const p = messages.appendChild(make('p'));
        if (err instanceof Undecodable)
          say(p, 'imageFailed', { view: { key: view }, why: { key: 'imageUndecodable' } }, 'error');
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

/** Draws the signed mandate into `container`; true when every page is shown. */
export async function showMandate(d: Submission, container: HTMLElement, stale: () => boolean): Promise<boolean> {
  if (!d.mandate_signed) {
    say('mandate-message', 'mandateNotSigned', {}, 'error');
    return false;
  }
  let data: Uint8Array;
  try {
    const path = { silo_entry_id: d.entry_id };
    const pdf = await answer(
      client.GET('/apps/gov-fr/v1/review/submissions/{silo_entry_id}/mandate', {
        params: { path },
        parseAs: 'arrayBuffer',
      }),
    );
    data = new Uint8Array(pdf);
  } catch (err) {
    if (stale()) return false;
    const k = errorKey(err, 'mandate');
    say('mandate-message', 'mandateFailed', { why: { key: k } }, 'error', detailFor(err, k));
    return false;
  }
  try {
    // Loaded when first needed: should pdf.js fail to load, the rest of the page still works and says so here.
    const { renderPdf } = await import('../../page-kit/pdf-view');
    const { pages, shown } = await renderPdf(data, container, (n) => t('mandateFrame', { n }));
    if (stale()) return false;
    if (shown < pages) {
      say('mandate-message', 'mandateTooLong', { shown, pages }, 'error');
      return false;
    }
    say('mandate-message', 'mandateShown', { pages }, 'hint');
    byId('zoom').hidden = false;
    return true;
  } catch (err) {
    if (!stale())
      say('mandate-message', 'mandateUnreadable', { why: err instanceof Error ? err.message : String(err) }, 'error');
    return false;
  }
}

/** The mandate's page size: the frame's width, or larger (the frame then scrolls) for a narrow screen. */
export function setZoom(z: string): void {
  const pages = byId('mandate');
  const before = Number(pages.dataset.zoom || 1);
  pages.dataset.zoom = z;
  for (const b of byId('zoom').querySelectorAll<HTMLElement>('button'))
    b.setAttribute('aria-pressed', String(b.dataset.zoom === z));
  // Keep the same part of the page in view.
  const k = Number(z) / before;
  pages.scrollLeft *= k;
  pages.scrollTop *= k;
}
