// The queue: every workspace's submissions awaiting a decision, as the filters ask, a page at a time, each card with
// the checks recorded when it was submitted. After a decision the next card is opened (review.ts).
import { answer } from '../../page-kit/api';
import { byId, make } from '../../page-kit/dom';
import { client, say, sayError, session, t, type Listed } from './session';

type Answer = Awaited<ReturnType<typeof fetchPage>>;

let queue: Listed[] = [];
let total = 0;
let next: string | undefined;
let loaded = false;
/** The query of the pages shown: the next page asks with the same one (its age filter's instant included). */
let shownQuery: ReturnType<typeof filterQuery> | undefined;
/** Counts the loads: a late page of an earlier filter lands nowhere. */
let loads = 0;
let opener: (item: Listed) => void = () => undefined;

/** What a click on a listed submission does (the page opens it). */
export const onPick = (open: (item: Listed) => void): void => void (opener = open);

const value = (id: string) => byId<HTMLInputElement | HTMLSelectElement>(id).value;
const checked = (id: string) => byId<HTMLInputElement>(id).checked;
const DAY_MS = 86_400_000;

/** The query the filters ask for. */
function filterQuery() {
  const kind = value('f-kind');
  const evidence = value('f-evidence');
  const age = Number(value('f-age'));
  const q = value('f-q').trim();
  return {
    order: value('f-order') as 'oldest' | 'urgent',
    ...(value('f-workspace') && { workspace_id: value('f-workspace') }),
    ...(kind && { kind: kind as NonNullable<Query['kind']> }),
    ...(evidence && { evidence: evidence as NonNullable<Query['evidence']> }),
    ...(age > 0 && { submitted_before: new Date(Date.now() - age * DAY_MS).toISOString() }),
    ...(checked('f-mismatch') && { name_mismatch: 'true' as const }),
    ...(checked('f-inactive') && { not_active: 'true' as const }),
    ...(checked('f-second') && { first_approved: 'true' as const }),
    ...(checked('f-automatic') && { automatic: 'true' as const }),
    ...(value('f-signer') && { signer_check: value('f-signer') as NonNullable<Query['signer_check']> }),
    ...(q && { q }),
  };
}
type Query = NonNullable<Parameters<typeof fetchPage>[0]>;

function fetchPage(query: {
  order?: 'oldest' | 'urgent';
  workspace_id?: string;
  kind?: 'first' | 'resubmission' | 'registration' | 'renewal' | 'takeover';
  evidence?: 'in-app' | 'digital-signature' | 'visible-signature' | 'scan';
  submitted_before?: string;
  name_mismatch?: 'true';
  not_active?: 'true';
  first_approved?: 'true';
  automatic?: 'true';
  signer_check?: 'pass' | 'fail' | 'unavailable';
  q?: string;
  limit?: number;
  cursor?: string;
}) {
  return answer(client.GET('/apps/gov-fr/v1/review/submissions', { params: { query } }));
}

/**
 * The first page for the filters as they are; `keep`: as many cards as were shown (after a decision, so an operator
 * deep in the list stays there), within a page's 200.
 */
export async function loadQueue(keep = 0): Promise<void> {
  const mine = ++loads;
  say('status', 'loadingQueue');
  byId('filters').hidden = false;
  try {
    const query = { ...filterQuery(), ...(keep > 50 && { limit: Math.min(200, keep) }) };
    const page = await fetchPage(query);
    if (mine !== loads) return;
    shownQuery = query;
    queue = page.list;
    took(page);
  } catch (err) {
    if (mine !== loads) return;
    queue = [];
    loaded = false;
    renderQueue();
    sayError('status', err);
  }
}

/** The next page, after those shown. */
async function loadMore(): Promise<void> {
  const mine = loads;
  const cursor = next;
  if (!cursor || !shownQuery) return;
  byId<HTMLButtonElement>('more').disabled = true;
  try {
    const page = await fetchPage({ ...shownQuery, cursor });
    if (mine !== loads) return;
    const shown = new Set(queue.map((s) => s.entry_id));
    queue = [...queue, ...page.list.filter((s) => !shown.has(s.entry_id))];
    took(page);
  } catch (err) {
    if (mine === loads) sayError('status', err);
  } finally {
    byId<HTMLButtonElement>('more').disabled = false;
  }
}

function took(page: Answer): void {
  total = page.total;
  next = page.next_cursor;
  loaded = true;
  showWorkspaces(page.workspaces);
  renderQueue();
}

/** The workspace filter lists those with pending submissions, the one chosen kept. */
function showWorkspaces(list: Answer['workspaces']): void {
  const select = byId<HTMLSelectElement>('f-workspace');
  const chosen = select.value;
  const all = select.options[0]!;
  const options = list.map((w) => make('option', { value: w.id, textContent: `${w.name} (${w.pending})` }));
  if (chosen && !list.some((w) => w.id === chosen)) options.push(make('option', { value: chosen, textContent: '—' }));
  select.replaceChildren(all, ...options);
  select.value = chosen;
}

/** The session ended: nothing of the queue stays on screen. */
export function clearQueue(): void {
  loads++;
  queue = [];
  next = undefined;
  shownQuery = undefined;
  loaded = false;
  byId('filters').hidden = true;
  say('decided', null);
  renderQueue();
}

/** Whether the operator signed in gave its first approval: another operator must decide (four eyes). */
const approvedByMe = (s: Listed): boolean =>
  s.first_approval?.decided_by?.id !== undefined && s.first_approval.decided_by.id === session.operator?.id;

/**
 * The submission listed after this one (or before it, when none after is): the one to open after deciding. Those
 * this operator approved first are passed over: only another operator can decide them.
 */
export function nextAfter(entryId: string): Listed | undefined {
  const i = queue.findIndex((s) => s.entry_id === entryId);
  if (i < 0) return undefined;
  const open = (s: Listed | undefined) => s !== undefined && !approvedByMe(s);
  return queue.slice(i + 1).find(open) ?? queue.slice(0, i).reverse().find(open);
}

/** A submission decided here leaves the queue at once. */
export function dropFromQueue(entryId: string): void {
  if (!queue.some((s) => s.entry_id === entryId)) return;
  queue = queue.filter((s) => s.entry_id !== entryId);
  total = Math.max(0, total - 1);
  renderQueue();
}

/** How many cards are shown. */
export const shownCount = (): number => queue.length;

/** Whether the submission is still listed (a reload may have taken it away: decided elsewhere). */
export const listed = (entryId: string): Listed | undefined => queue.find((s) => s.entry_id === entryId);

const badge = (key: string, cls = '', vars = {}) =>
  make('span', { className: `badge ${cls}`, textContent: t(key, vars) });

/** The facts recorded with the submission, as badges: what it is for, its round, its evidence, the Annuaire's word. */
function badges(s: Listed): HTMLElement[] {
  const c = s.checks;
  const first = s.first_approval;
  const out = !first
    ? []
    : approvedByMe(s)
      ? [badge('mineFirstBadge', 'info')]
      : [badge('secondBadge', 'warn', { name: first.decided_by?.name ?? '—' })];
  if (!c) return s.upload_evidence === 'scan' ? [...out, badge('scanBadge', 'warn')] : out;
  if (c.purpose !== 'registration') out.push(badge(`kind-${c.purpose}`, c.purpose === 'takeover' ? 'warn' : 'info'));
  if (c.round > 1) out.push(badge('roundBadge', 'info', { n: c.round }));
  if (c.evidence !== 'in-app') out.push(badge(`ev-${c.evidence}`, c.evidence === 'scan' ? 'warn' : 'info'));
  if (c.name_matches === false) out.push(badge('nameMismatchBadge', 'warn'));
  if (c.company_active === false) out.push(badge('notActiveBadge', 'warn'));
  if (c.directory.outcome === 'unavailable' || c.directory.outcome === 'unchecked')
    out.push(badge('uncheckedBadge', 'info'));
  if (c.signer_check.result !== 'pass')
    out.push(
      badge(
        `signer${c.signer_check.result === 'fail' ? 'Fail' : 'Unavailable'}Badge`,
        c.signer_check.result === 'fail' ? 'warn' : 'info',
      ),
    );
  const sig = c.signature;
  if (sig?.kind === 'digital-signature' && sig.certificate && !sig.certificate.trusted)
    out.push(badge('certUntrustedBadge', 'warn'));
  if (sig?.kind === 'digital-signature' && !sig.names_signer) out.push(badge('certOtherBadge', 'warn'));
  const auto = s.automatic;
  if (auto)
    out.push(badge('automaticBadge', 'info', { rule: auto.rule, until: { date: auto.overturnable_until ?? '' } }));
  return out;
}

export function renderQueue(): void {
  byId('queue').replaceChildren(
    ...queue.map((s) => {
      const b = make('button', { type: 'button' });
      b.append(`${s.name ?? '—'} · SIREN ${s.siren ?? '—'} · ${s.workspace.name}`, ...badges(s));
      const when = [t('submittedAt', { at: { date: s.submitted_at } })];
      // An automatic approval is decided: when its registration runs on, not a deadline.
      if (s.automatic?.runs_on_at) when.push(t('runsOnAt', { at: { date: s.automatic.runs_on_at } }));
      else if (s.checks) when.push(t('decideBy', { at: { date: s.checks.decide_by } }));
      b.append(make('span', { className: 'facts-line', textContent: when.join(' · ') }));
      if (session.current?.item.entry_id === s.entry_id) b.setAttribute('aria-current', 'true');
      b.onclick = () => opener(s);
      const li = make('li');
      li.append(b);
      return li;
    }),
  );
  byId('more').hidden = !next;
  // None listed: say whether the queue is empty or the filters and search left nothing of it.
  const none = Object.keys(shownQuery ?? {}).some((k) => k !== 'order') ? 'queueNoMatch' : 'queueEmpty';
  const count = shownQuery?.automatic ? 'automaticCount' : 'queueCount';
  if (loaded) say('status', total ? count : none, { n: total, shown: queue.length });
}

/** Any change of a filter loads the first page again; typing in the search waits for a pause. */
export function watchFilters(): void {
  let typing: ReturnType<typeof setTimeout> | undefined;
  const form = byId<HTMLFormElement>('filters');
  form.onsubmit = (e) => {
    e.preventDefault();
    void loadQueue();
  };
  form.onchange = () => void loadQueue();
  byId('f-q').oninput = () => {
    clearTimeout(typing);
    typing = setTimeout(() => void loadQueue(), 300);
  };
  byId('more').onclick = () => void loadMore();
}
