// The inspection pool's own budgets (domain/inspection/pool.ts): a job over its time or memory budget is stopped, its child
// killed and replaced, and the pool goes on answering; closing it ends its children.
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { buildMandatePdf } from '../../../domain/mandate-document/pdf';
import { BusyError, InspectionPool, RefusedFile } from '../../../domain/inspection';
import { party } from '../../../bin/stack/sample-parties';
import { png } from '../../../bin/stack/sample-images';

const number = '552032534_0145_20261125_01';
const reference = {
  party: party('552032534') as never,
  siren: '552032534',
  pa: { name: 'PA', siren: '552032534', matricule: '0145' },
  mandateNumber: number,
  issuedOn: '2026-11-25',
  entryId: 'e',
};
const mandate = () => buildMandatePdf(reference);
const pids = (pool: InspectionPool) =>
  (pool as unknown as { slots: { child: { pid: number } }[] }).slots.map((s) => s.child.pid);
const alive = (pid: number) =>
  fs.existsSync(`/proc/${pid}`) && !/State:\s+Z/.test(fs.readFileSync(`/proc/${pid}/status`, 'latin1'));

let pool: InspectionPool | undefined;
afterEach(() => pool?.close());

async function refusal(p: Promise<unknown>) {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(RefusedFile);
  return (err as RefusedFile).refusal;
}

describe('the inspection pool', () => {
  it('stops a job over its time budget, replaces the child, and answers the next job', async () => {
    pool = new InspectionPool({ size: 1, queue: 2, timeMs: 1, memoryMb: 2048 });
    const pdf = await mandate();
    const r = await refusal(pool.run({ kind: 'mandate', bytes: pdf, reference }));
    expect(r.code).toBe('too-complex');
    expect(r.sizeLimit).toBeFalsy(); // a time budget is a structure refusal: 422, not 413
    expect(r.reason).toMatch(/took longer than 0\.001 s to check \(the limit\)/);
    const [first] = pids(pool);
    expect((await refusal(pool.run({ kind: 'mandate', bytes: pdf, reference }))).code).toBe('too-complex');
    expect(pids(pool)[0]).not.toBe(first);
  });

  it('stops a child whose resident memory goes over the budget (zlib and libvips buffers are outside the V8 heap)', async () => {
    // pdf.js alone takes more than 128 MB resident: any job goes over.
    pool = new InspectionPool({ size: 1, queue: 2, timeMs: 30_000, memoryMb: 128 });
    const r = await refusal(pool.run({ kind: 'mandate', bytes: await mandate(), reference }));
    expect(r.reason).toMatch(/needed more than 128 MB of memory to check \(the limit\)/);
  });

  it('with a budget that fits, answers; closed, its children are gone', async () => {
    pool = new InspectionPool({ size: 2, queue: 2, timeMs: 30_000, memoryMb: 1024 });
    expect((await refusal(pool.run({ kind: 'mandate', bytes: await mandate(), reference }))).code).toBe('not-signed');
    const children = pids(pool);
    await pool.close();
    expect(children.filter(alive)).toEqual([]);
    await expect(pool.run({ kind: 'mandate', bytes: new Uint8Array(1), reference })).rejects.toThrow(/closed/);
  });
});

describe('owners of files', () => {
  it('one owner has at most two files in the pool, and a child takes next the file of the owner served least recently', async () => {
    pool = new InspectionPool({ size: 1, queue: 8, timeMs: 30_000, memoryMb: 1024 });
    const pdf = await mandate();
    const job = { kind: 'mandate' as const, bytes: pdf, reference };
    const order: string[] = [];
    // Our unsigned mandate: each check ends in a refusal (not signed), unless the pool turns the file away (busy).
    const track = (name: string, p: Promise<unknown>) =>
      p.catch((e: unknown) => order.push(e instanceof BusyError ? `${name}: busy` : name));
    // A link sends three files at once: the third is told to come back; then another registration's file arrives.
    const a1 = track('a1', pool.ownedBy('w', 'a').run(job));
    const a2 = track('a2', pool.ownedBy('w', 'a').run(job));
    const a3 = track('a3', pool.ownedBy('w', 'a').run(job));
    const b1 = track('b1', pool.ownedBy('w', 'b').run(job));
    await Promise.all([a1, a2, a3, b1]);
    expect(order[0]).toBe('a3: busy');
    expect(order.slice(1)).toEqual(['a1', 'b1', 'a2']); // b1 before a2, though it came after
  });

  it('workspaces share the pool first, then their registrations: a flood has its share, a newcomer finds room and goes first', async () => {
    // One child and a queue of 8 (9 places): a workspace alone may hold 4 (half), beside others less; a workspace
    // with files in the pool cannot take the queue's last 2 places; a registration holds 2 at most.
    const job = {
      kind: 'image' as const,
      bytes: png(64, 64),
      claimed: 'image/png' as const,
      purpose: 'identity' as const,
    };
    pool = new InspectionPool({ size: 1, queue: 8, timeMs: 30_000, memoryMb: 1024 });
    const order: string[] = [];
    const busy: string[] = [];
    const track = (workspace: string, link: string) =>
      pool!
        .ownedBy(workspace, link)
        .run(job)
        .then(
          () => order.push(`${workspace} ${link}`),
          (e: unknown) => (e instanceof BusyError ? busy.push(`${workspace} ${link}`) : order.push(String(e))),
        );
    // B floods from 6 links, two files each; then C from 3; then D sends one file. The child is still starting: all wait.
    const links = (n: number) => Array.from({ length: n * 2 }, (_, i) => `r${Math.floor(i / 2) + 1}`);
    const sent = [...links(6).map((l) => track('B', l)), ...links(3).map((l) => track('C', l)), track('D', 'x')];
    await Promise.all(sent);
    // B holds 4 (its half), C 2 (up to the queue's last 2 places), D, new, one of those.
    expect(busy).toEqual([
      ...['r3', 'r3', 'r4', 'r4', 'r5', 'r5', 'r6', 'r6'].map((l) => `B ${l}`),
      ...['r2', 'r2', 'r3', 'r3'].map((l) => `C ${l}`),
    ]);
    // The workspace served least recently first (D, never served, before B and C once served), then within it the
    // registration served least recently.
    expect(order).toEqual(['B r1', 'C r1', 'D x', 'B r2', 'C r1', 'B r1', 'B r2']);
  });
});
