// The operators' review page, behind a session opened with an operator's credential (sign-in.ts).
// Everything a decision rests on is shown, or the page says in words why it cannot be; approving needs the
// identity images and the mandate on screen, and a decision once recorded (here or elsewhere) closes the buttons.
import { ApiError, answer } from '../../page-kit/api';
import { byId } from '../../page-kit/dom';
import { keepLang, translateFixed } from '../../page-kit/i18n';
import { translateMessages } from '../../page-kit/messages';
import { setZoom } from './documents';
import {
  clearQueue,
  dropFromQueue,
  listed,
  loadQueue,
  nextAfter,
  onPick,
  renderQueue,
  shownCount,
  watchFilters,
} from './queue';
import { onSessionEnded, resumeSession, signIn, signOut } from './sign-in';
import { client, say, sayError, session, t } from './session';
import { open, setButtons } from './submission';

function applyLang(): void {
  translateFixed(t, session.lang, byId('lang-switch'));
  translateMessages(t);
  for (const el of document.querySelectorAll<HTMLImageElement>('[data-alt]'))
    el.alt = t('imageAlt', { view: { key: el.dataset.alt ?? '' } });
  renderQueue();
}

async function decide(approved: boolean): Promise<void> {
  const reason = byId<HTMLTextAreaElement>('reason').value.trim();
  if (!approved && !reason) {
    say('outcome', 'reasonRequired', {}, 'error');
    byId('reason').focus();
    return;
  }
  const button = (id: string) => !byId<HTMLButtonElement>(id).disabled;
  const before = { approve: button('approve'), reject: button('reject') };
  const { entry_id: entryId } = session.current!.item;
  const mine = session.seq;
  setButtons({ approve: false, reject: false });
  say('outcome', 'deciding');
  try {
    const d = await answer(
      client.POST('/apps/gov-fr/v1/entry/{silo_entry_id}/decision', {
        params: { path: { silo_entry_id: entryId } },
        body: { approved, ...(reason && { reason }) },
      }),
    );
    if (mine === session.seq) {
      const first = d.awaiting === 'second-approval';
      const decision = { key: first ? 'FirstApproval' : d.decision };
      say('outcome', first ? 'recordedFirst' : 'recorded', { decision, at: { date: d.decided_at } }, 'ok');
      // The next submission opens at once; the queue panel keeps what was recorded.
      const name = session.current?.item.name ?? '—';
      say('decided', first ? 'decidedFirstOn' : 'decidedOn', { decision, name }, 'ok');
      const following = nextAfter(entryId);
      dropFromQueue(entryId);
      await loadQueue(shownCount());
      // Listed again (or on a later page than the first, reloaded): its detail says if it was decided meanwhile.
      if (following && mine === session.seq) void open(listed(following.entry_id) ?? following);
      return;
    }
    dropFromQueue(entryId);
  } catch (err) {
    if (mine === session.seq && err instanceof ApiError && err.code === 'same-operator') {
      say('outcome', 'secondByOther', {}, 'error'); // four eyes: this operator may still reject
      setButtons({ approve: false, reject: before.reject });
    } else if (mine === session.seq) {
      say('decided', null); // what was recorded on another card before does not stand beside this refusal
      const automatic = session.current?.detail?.decision?.automatic;
      // An automatic approval whose window closed meanwhile: it stands, the registration runs on.
      if (automatic && err instanceof ApiError && err.status === 409) say('outcome', 'overturnClosed', {}, 'error');
      else sayError('outcome', err);
      // Decided elsewhere, or nothing left to decide: the buttons stay closed. Anything else may be tried again.
      const status = err instanceof ApiError ? err.status : undefined;
      if (status !== 409 && status !== 404) setButtons(before);
    }
  }
  // Whatever the outcome, the queue as it is now: a submission decided here or elsewhere leaves it.
  await loadQueue(shownCount());
}

byId<HTMLFormElement>('login').onsubmit = (e) => {
  e.preventDefault();
  const field = byId<HTMLInputElement>('credential');
  const credential = field.value.trim();
  field.value = '';
  void signIn(credential).then((signedIn) => (signedIn ? loadQueue() : undefined));
};
byId('sign-out').onclick = () => void signOut();
onSessionEnded(() => {
  session.seq++; // what was loading for the submission on screen lands nowhere
  session.current = undefined;
  byId('detail').hidden = true;
  clearQueue();
});
byId('lang-switch').onclick = () => {
  session.lang = session.lang === 'fr' ? 'en' : 'fr';
  keepLang('review-lang', session.lang);
  applyLang();
};
for (const b of byId('zoom').querySelectorAll<HTMLButtonElement>('button'))
  b.onclick = () => setZoom(b.dataset.zoom ?? '1');
byId('approve').onclick = () => void decide(true);
byId('reject').onclick = () => void decide(false);
onPick((item) => void open(item));
watchFilters();
applyLang();
void resumeSession().then((signedIn) => (signedIn ? loadQueue() : undefined));
