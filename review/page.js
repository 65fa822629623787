// The operator's review page: the key stays in this tab (sessionStorage) and goes only to this service's API.
const api = '../v1';
const $ = (id) => document.getElementById(id);
let key = sessionStorage.getItem('operator-key') || '';
let current;

async function call(path, init = {}) {
  const res = await fetch(`${api}${path}`, { ...init, headers: { authorization: `Bearer ${key}`, ...(init.body && { 'content-type': 'application/json' }) } });
  if (!res.ok) {
    const problem = await res.json().catch(() => ({}));
    throw new Error(problem.detail || `HTTP ${res.status}`);
  }
  return res;
}

const blobUrl = async (path) => URL.createObjectURL(await (await call(path)).blob());

async function loadQueue() {
  $('status').textContent = 'Chargement…';
  try {
    const { list } = await (await call('/review/submissions')).json();
    $('queue').replaceChildren(...list.map((s) => {
      const li = document.createElement('li');
      const b = document.createElement('button');
      b.textContent = `${s.name ?? '—'} (SIREN ${s.siren}) — ${s.submitted_at.slice(0, 16).replace('T', ' ')}`;
      b.onclick = () => open(s);
      li.append(b);
      return li;
    }));
    $('status').textContent = list.length ? `${list.length} soumission(s) à examiner` : 'Aucune soumission en attente';
  } catch (err) {
    $('status').innerHTML = '';
    $('status').append(Object.assign(document.createElement('span'), { className: 'error', textContent: err.message }));
  }
}

async function open(s) {
  current = s;
  $('detail').hidden = false;
  $('outcome').textContent = '';
  $('title').textContent = `${s.name ?? '—'} — mandat ${s.mandate_number}`;
  const entry = await (await fetch(`../../../silo/v1/entries/${s.entry_id}`, { headers: { authorization: `Bearer ${key}` } })).json();
  const person = entry.data?.people?.[0];
  const rows = [['SIREN', s.siren], ['TVA', entry.data?.tax_id?.code], ['Signataire', person && `${person.name?.given ?? ''} ${person.name?.surname ?? ''} (${person.role ?? ''})`]];
  $('party').replaceChildren(...rows.flatMap(([k, v]) => [Object.assign(document.createElement('dt'), { textContent: k }), Object.assign(document.createElement('dd'), { textContent: v ?? '—' })]));
  const images = [];
  for (const view of ['front', 'back', 'page']) {
    try {
      images.push(Object.assign(document.createElement('img'), { src: await blobUrl(`/entry/${s.entry_id}/identity/${view}`), alt: `Pièce d’identité : ${view}` }));
    } catch { /* this view was not provided */ }
  }
  $('images').replaceChildren(...images);
  $('mandate').src = await blobUrl(`/entry/${s.entry_id}/agreement`);
}

async function decide(approved) {
  const reason = $('reason').value.trim();
  try {
    await call(`/entry/${current.entry_id}/decision`, { method: 'POST', body: JSON.stringify({ approved, ...(reason && { reason }) }) });
    $('outcome').textContent = approved ? 'Approuvé.' : 'Refusé.';
    $('reason').value = '';
    await loadQueue();
  } catch (err) {
    $('outcome').textContent = err.message;
  }
}

$('login').onsubmit = (e) => {
  e.preventDefault();
  key = $('key').value;
  sessionStorage.setItem('operator-key', key);
  loadQueue();
};
$('approve').onclick = () => decide(true);
$('reject').onclick = () => decide(false);
if (key) loadQueue();
