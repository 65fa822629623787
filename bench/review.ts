// `npm run bench:review`: the operators' review page over a queue of 5,000 pending submissions seeded in PostgreSQL
// (bin/stack/review-queue-fixture.ts), in Chromium: the first page's load (from navigation to the queue on screen,
// goal ≤ 1.5 s), the next page and a SIREN search (goal ≤ 0.5 s each). Each beside its floor, measured in the same
// run: the same page with the queue's answers recorded and served from memory, so the browser's own work (the page,
// its scripts, drawing the cards) is the floor and ours is what the API and PostgreSQL add.
// Env: BENCH_PENDING (default 5000), BENCH_ITERATIONS (default 10), TEST_DATABASE_URL (default the local server).
import crypto from 'node:crypto';
import fs from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { Page } from 'playwright-core';
import { createApp } from '../api/app';
import { freshSchema } from '../bin/stack/cluster';
import { seedReviewQueue } from '../bin/stack/review-queue-fixture';
import { createOperator } from '../domain/operators/credentials';
import { loadConfig } from '../platform/config';
import { dataBoxFromConfig } from '../platform/crypto/data-box';
import { sealKeyFromConfig } from '../domain/mandate-document/seal-key';
import { createLogger } from '../platform/observability/logger';
import { createWorkspace } from '../platform/store/workspaces';
import { launchChromium } from '../bin/stack/chromium';

const pending = Number(process.env.BENCH_PENDING ?? 5000);
const iterations = Number(process.env.BENCH_ITERATIONS ?? 10);
const GOALS = { first: 1500, next: 500, search: 500 };

const store = await freshSchema();
const config = loadConfig({
  DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'pa-bench-review-')),
  DATA_ENCRYPTION_KEYS: `bench:${crypto.randomBytes(32).toString('base64')}`,
  RATE_LIMIT_PER_MINUTE: '1000000',
  RATE_LIMIT_PER_IP_PER_MINUTE: '10000000',
});
const log = createLogger('warn', 'bench-review');
// The queue reads the store only: a client that never connects stands in for Temporal.
const temporal = new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) });
const app = createApp({
  db: store.db,
  log,
  temporal,
  config,
  box: dataBoxFromConfig(config),
  sealKey: sealKeyFromConfig(config),
});
const server: Server = await new Promise((resolve) => {
  const s = app.listen(0, '127.0.0.1', () => resolve(s));
});
const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const workspaces = await Promise.all(
  ['Cabinet Alpha', 'Logiciel Bêta', 'Expert Gamma'].map((n) => createWorkspace(store.db, n)),
);
const seeded = await seedReviewQueue(store.db, { count: pending, workspaces });
const { credential } = await createOperator(store.db, null, { name: 'Bench Operator', roles: ['decide'] });
const browser = await launchChromium();

/** Answers recorded from the API by query string, served back to the floor's page. */
const recorded = new Map<string, { status: number; body: Buffer; headers: Record<string, string> }>();

async function signedInPage(floor: boolean): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const queue = (u: URL) => u.pathname.endsWith('/v1/review/submissions');
  await page.route(queue, async (route) => {
    const key = new URL(route.request().url()).search;
    const known = recorded.get(key);
    if (floor && known) return route.fulfill(known);
    const r = await route.fetch();
    recorded.set(key, { status: r.status(), body: await r.body(), headers: r.headers() });
    return route.fulfill({ response: r });
  });
  await page.goto(`${baseUrl}/apps/gov-fr/review/`);
  await page.fill('#credential', credential);
  await page.click('#login button');
  await page.waitForFunction(() => /affichée/.test(document.querySelector('#status')?.textContent ?? ''));
  return page;
}

const shown = (page: Page, text: string) =>
  page.waitForFunction((t) => (document.querySelector('#status')?.textContent ?? '').startsWith(t), text);

/** One round: the first page after a reload, the next page, a SIREN search; milliseconds each. */
async function round(page: Page, siren: string): Promise<{ first: number; next: number; search: number }> {
  let t = performance.now();
  await page.reload();
  await shown(page, '50 affichée(s)');
  const first = performance.now() - t;
  t = performance.now();
  await page.click('#more');
  await shown(page, '100 affichée(s)');
  const next = performance.now() - t;
  t = performance.now();
  await page.fill('#f-q', siren);
  await page.press('#f-q', 'Enter');
  await shown(page, '1 affichée(s) sur 1 ');
  const search = performance.now() - t;
  await page.fill('#f-q', '');
  return { first, next, search };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function measure(floor: boolean, sirens: string[]) {
  const page = await signedInPage(floor);
  const runs = [];
  for (const siren of sirens) runs.push(await round(page, siren));
  await page.context().close();
  return {
    first: median(runs.map((r) => r.first)),
    next: median(runs.map((r) => r.next)),
    search: median(runs.map((r) => r.search)),
  };
}

try {
  const sirens = Array.from({ length: iterations }, (_, i) => seeded[(i * 997) % pending]!.siren);
  await measure(false, sirens.slice(0, 2)); // warm-up: the page's files cached, the answers recorded for the floor
  await measure(false, sirens); // every answer the floor replays, recorded
  const ours = await measure(false, sirens);
  const floor = await measure(true, sirens);
  console.log(
    `\nnpm run bench:review   (${pending} pending across ${workspaces.length} workspaces, ${iterations} rounds, Node ${process.version}, ${os.cpus().length} CPUs)`,
  );
  console.log('median ms       ours   floor   ratio ours/floor   goal');
  for (const k of ['first', 'next', 'search'] as const) {
    const label = { first: 'first page', next: 'next page', search: 'SIREN search' }[k];
    const verdict = ours[k] <= GOALS[k] ? 'met' : 'NOT met';
    console.log(
      `${label.padEnd(14)} ${ours[k].toFixed(0).padStart(6)} ${floor[k].toFixed(0).padStart(7)} ${(ours[k] / floor[k]).toFixed(2).padStart(18)}   ≤ ${GOALS[k]} ms: ${verdict}`,
    );
  }
} finally {
  await browser.close();
  server.closeAllConnections();
  server.close();
  await temporal.connection.close().catch(() => undefined);
  await store.drop();
}

// Code passed to waitForFunction runs in the browser.
declare const document: { querySelector(s: string): { textContent: string | null } | null };
