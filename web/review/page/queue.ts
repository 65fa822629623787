// The queue: the submissions waiting for a decision in every workspace, oldest first as the API lists them.
import { answer } from '../../page-kit/api';
import { byId, make } from '../../page-kit/dom';
import { client, say, sayError, session, t, type Listed } from './session';

let queue: Listed[] = [];
let loaded = false;
let opener: (item: Listed) => void = () => undefined;

/** What a click on a listed submission does (the page opens it). */
export const onPick = (open: (item: Listed) => void): void => void (opener = open);

export async function loadQueue(): Promise<void> {
  say('status', 'loadingQueue');
  loaded = false;
  try {
    ({ list: queue } = await answer(client.GET('/apps/gov-fr/v1/review/submissions')));
    loaded = true;
    renderQueue();
  } catch (err) {
    queue = [];
    loaded = false;
    renderQueue();
    sayError('status', err);
  }
}

/** The session ended: nothing of the queue stays on screen. */
export function clearQueue(): void {
  queue = [];
  loaded = false;
  renderQueue();
}

/** A submission decided here leaves the queue at once. */
export function dropFromQueue(entryId: string): void {
  queue = queue.filter((s) => s.entry_id !== entryId);
  renderQueue();
}

export function renderQueue(): void {
  byId('queue').replaceChildren(
    ...queue.map((s) => {
      const b = make('button', { type: 'button' });
      b.append(
        `${s.name ?? '—'} · SIREN ${s.siren ?? '—'} · ${t('submittedAt', { at: { date: s.submitted_at } })} · ${s.workspace.name}`,
      );
      if (s.upload_evidence === 'scan') b.append(make('span', { className: 'badge', textContent: t('scanBadge') }));
      if (session.current?.item.entry_id === s.entry_id) b.setAttribute('aria-current', 'true');
      b.onclick = () => opener(s);
      const li = make('li');
      li.append(b);
      return li;
    }),
  );
  if (loaded) say('status', queue.length ? 'queueCount' : 'queueEmpty', { n: queue.length });
}
