// The events' cursor is opaque and per workspace: each workspace numbers its events apart, so what a workspace pages
// through, cursors included, is the same whatever other workspaces do. On PGlite and, with TEST_DATABASE_URL, on
// PostgreSQL (where transactions in one workspace really overlap).
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db, Queryable } from '../../../platform/store/db';
import { insertEntry } from '../../../platform/store/entries';
import {
  decodeEventCursor,
  encodeEventCursor,
  eventCtes,
  eventParams,
  listEvents,
} from '../../../platform/store/events';
import { encodeCursor } from '../../../platform/store/rows';
import { createWorkspace } from '../../../platform/store/workspaces';
import { eventsQuery } from '../../../api/events';
import { freshDb } from '../../support/harness';
import { makeSiren, party } from '../../../bin/stack/sample-parties';

const engines = ['pglite', ...(process.env.TEST_DATABASE_URL ? ['postgres' as const] : [])] as const;

describe.each(engines)('events cursor on %s', (engine) => {
  let db: Db;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ db, drop } = await freshDb(engine));
  });
  afterAll(() => drop());

  /** A workspace with one entry. */
  const workspace = async (name: string) => {
    const ws = (await createWorkspace(db, `${name}-${crypto.randomUUID().slice(0, 8)}`)).id;
    const siren = makeSiren();
    const entry = await insertEntry(db, {
      id: crypto.randomUUID(),
      workspaceId: ws,
      docSchema: 'org/party',
      data: party(siren),
      siren,
    });
    return { ws, entryId: entry.id };
  };
  /** An event of the entry, written as the store writes them (eventCtes). */
  const writeEvent = (q: Queryable, entryId: string, n: number) =>
    q.query(
      `WITH source AS (SELECT id, workspace_id FROM entries WHERE id = $1::uuid), ${eventCtes('source', 2)} SELECT 1`,
      [entryId, ...eventParams({ kind: 'party.updated', entryId, data: { n } })],
    );
  /** Every page of the workspace's events, `limit` at a time: their ids and the cursors that led past each page. */
  const pages = async (ws: string, limit: number) => {
    const ids: string[] = [];
    const cursors: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await listEvents(db, ws, { limit, cursor });
      ids.push(...page.list.map((e) => e.id));
      cursor = page.next_cursor;
      if (cursor) cursors.push(cursor);
    } while (cursor);
    return { ids, cursors };
  };

  it("pages one workspace's events without gaps left by another's, with cursors that do not depend on it", async () => {
    const a = await workspace('a');
    const b = await workspace('b');
    // A and B interleave: A writes 6 events, B 9 between them.
    const order = 'abbabbbaabbabba';
    const written: string[] = [];
    for (const [i, who] of [...order].entries()) {
      await writeEvent(db, who === 'a' ? a.entryId : b.entryId, i);
      if (who === 'a') written.push(String(i));
    }
    const { list } = await listEvents(db, a.ws, { limit: 100 });
    expect(list.map((e) => String((e.data as { n: number }).n))).toEqual(written.reverse()); // newest first, all A's

    const paged = await pages(a.ws, 1);
    expect(paged.ids).toEqual(list.map((e) => e.id));
    // The cursors number A's events 6, 5 … 2 (the last page has none): no gap where B wrote.
    expect(paged.cursors.map((c) => decodeEventCursor(c))).toEqual(['6', '5', '4', '3', '2']);
    for (const c of paged.cursors) {
      expect(c).not.toMatch(/^\d+$/); // not a bare number
      expect(c).toMatch(/^[A-Za-z0-9_-]+$/); // URL-safe as it is
    }

    // A workspace with the same history and no neighbour pages through the very same cursors.
    const alone = await workspace('alone');
    for (let i = 0; i < 6; i++) await writeEvent(db, alone.entryId, i);
    expect((await pages(alone.ws, 1)).cursors).toEqual(paged.cursors);
    expect((await pages(alone.ws, 4)).cursors).toEqual((await pages(a.ws, 4)).cursors);
    // B's own numbering counts B's events only.
    expect((await pages(b.ws, 1)).cursors.map((c) => decodeEventCursor(c))).toEqual([
      '9',
      '8',
      '7',
      '6',
      '5',
      '4',
      '3',
      '2',
    ]);
  });

  it('numbers concurrent writers in one workspace without gaps or repeats, in the order they committed', async () => {
    const a = await workspace('busy');
    // Transactions overlapping in one workspace, each writing two events with a pause between them.
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        db.tx(async (q) => {
          await writeEvent(q, a.entryId, 2 * i);
          await new Promise((r) => setTimeout(r, 5 * (i % 3)));
          await writeEvent(q, a.entryId, 2 * i + 1);
        }),
      ),
    );
    const { rows } = await db.query<{ ws_seq: string; n: number }>(
      `SELECT ws_seq, (payload->>'n')::int AS n FROM events WHERE workspace_id = $1 ORDER BY ws_seq`,
      [a.ws],
    );
    expect(rows.map((r) => Number(r.ws_seq))).toEqual(Array.from({ length: 16 }, (_, i) => i + 1));
    // A transaction's two events are numbered one after the other: numbers are given at commit.
    for (let k = 0; k < rows.length; k += 2) expect(rows[k + 1]!.n).toBe(rows[k]!.n + 1);
    expect((await pages(a.ws, 3)).ids).toHaveLength(16);
  });

  it('numbers the events of one statement in the order it wrote them', async () => {
    const a = await workspace('one-statement');
    const [first, second] = [0, 1].map((n) => eventParams({ kind: 'party.updated', entryId: a.entryId, data: { n } }));
    await db.query(
      `WITH source AS (SELECT id, workspace_id FROM entries WHERE id = $1::uuid),
         ${eventCtes('source', 2, undefined, 'first')}, ${eventCtes('source', 6, undefined, 'second')} SELECT 1`,
      [a.entryId, ...first!, ...second!],
    );
    const { rows } = await db.query<{ seq: string; ws_seq: string }>(
      'SELECT seq, ws_seq FROM events WHERE workspace_id = $1 ORDER BY seq',
      [a.ws],
    );
    expect(rows.map((r) => Number(r.ws_seq))).toEqual([1, 2]); // as the service-wide sequence ordered them
  });

  it.runIf(engine === 'postgres')(
    'a transaction still open does not leave a gap that fills later: it is numbered when it commits',
    async () => {
      const a = await workspace('slow');
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      let wrote!: () => void;
      const written = new Promise<void>((r) => (wrote = r));
      const slow = db.tx(async (q) => {
        await writeEvent(q, a.entryId, 0);
        wrote();
        await held;
      });
      await written;
      await writeEvent(db, a.entryId, 1); // commits while the first is open
      const seen = await listEvents(db, a.ws, { limit: 100 });
      expect(seen.list.map((e) => (e.data as { n: number }).n)).toEqual([1]);
      release();
      await slow;
      const { rows } = await db.query<{ ws_seq: string; n: number }>(
        `SELECT ws_seq, (payload->>'n')::int AS n FROM events WHERE workspace_id = $1 ORDER BY ws_seq`,
        [a.ws],
      );
      // The one committed first is 1, as a reader saw it then; the late one comes after it, never before.
      expect(rows.map((r) => [Number(r.ws_seq), r.n])).toEqual([
        [1, 1],
        [2, 0],
      ]);
    },
  );
});

describe('the events API takes its own cursors only', () => {
  it('refuses a cursor of the service-wide sequence, a bare number, or a number that is no event', () => {
    expect(eventsQuery.safeParse({ cursor: encodeEventCursor(12) }).success).toBe(true);
    for (const cursor of [
      encodeCursor(12),
      '12',
      encodeEventCursor(0),
      'nope',
      Buffer.from('w1x').toString('base64url'),
    ])
      expect(eventsQuery.safeParse({ cursor }).success, cursor).toBe(false);
  });
});
