// `npm run bench:json-bodies`: how long each JSON route's largest bodies, in their costly shapes (bench/json-bodies/
// cases.ts), hold the API's event loop, against a floor measured in the same run: a bare node:http server in its own
// process that reads the same body and JSON.parse()s it, the least any JSON route must do with it.
// Ours is the API process of a cluster (bin/stack/cluster.ts), its loop's longest delay read from its own /metrics
// (prom-client's nodejs_eventloop_lag_max_seconds, monitorEventLoopDelay at 10 ms, reset by each scrape); the floor
// reads its own the same way. Each case is measured BENCH_RUNS times (default 3) on each, the best kept: another
// process taking the CPU shows in one run, a block of ours in every one. Prints each case, then the worst.
import { fork } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { ownDevServer, startCluster } from '../bin/stack/cluster';
import { createAndStart, jobStatus, sirens, waitUntil } from '../bin/stack/onboard';
import { bodyCases } from './json-bodies/cases';
import { UPLOAD, jsonRoutes, type Target } from './json-bodies/routes';
import { send, type Answer } from './json-bodies/send';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
/** The goal the README states: no body holds the API's loop longer. */
const BUDGET_MS = 50;

if (process.argv[2] === '--floor') {
  // The floor: read the body, parse it, answer. GET /lag answers the loop's longest delay since the last one.
  const lag = monitorEventLoopDelay({ resolution: 10 });
  lag.enable();
  const server = http.createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/lag') {
      const ms = lag.max / 1e6;
      lag.reset();
      return void res.end(String(ms));
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= UPLOAD) chunks.push(c);
    });
    req.on('end', () => {
      try {
        JSON.parse(Buffer.concat(chunks).toString('utf8'));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } catch {
        res.writeHead(400).end();
      }
    });
  });
  server.listen(0, '127.0.0.1', () => process.send!((server.address() as { port: number }).port));
} else {
  await main();
}

async function main() {
  const say = (m: string) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${m}`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-json-'));
  say('starting a Temporal dev server, PostgreSQL schema, simulators, an API and a worker process');
  const temporal = await ownDevServer(dir, { inMemory: true });
  const cluster = await startCluster({ temporalAddress: temporal.address });
  const floorProcess = fork(fileURLToPath(import.meta.url), ['--floor']);
  try {
    const floorPort = await new Promise<number>((resolve) => floorProcess.once('message', (p) => resolve(p as number)));
    const ours = { baseUrl: cluster.apiUrls[0]!, apiKey: cluster.apiKey, operator: cluster.operator };
    const floor = { baseUrl: `http://127.0.0.1:${floorPort}`, apiKey: 'none' };
    const oursLag = async () => {
      const text = await (await fetch(`${ours.baseUrl}/metrics`)).text();
      return Number(/^nodejs_eventloop_lag_max_seconds (\S+)$/m.exec(text)![1]) * 1000;
    };
    const floorLag = async () => Number(await (await fetch(`${floor.baseUrl}/lag`)).text());

    // The routes point at an entry whose registration waits for its signer (some take it, some refuse it).
    const { entryId, jobId } = await createAndStart(cluster, sirens(1)[0]!);
    await waitUntil(async () => (await jobStatus(cluster, jobId!)) === 'WAIT', 60_000, 'the registration to wait');
    const link = await fetch(`${ours.baseUrl}/silo/v1/entries/${entryId}/meta/approval-link`, {
      headers: { authorization: `Bearer ${cluster.apiKey}` },
    });
    const at: Target = { entryId, ref: ((await link.json()) as { ref: string }).ref };
    const cases = bodyCases(jsonRoutes(at), at);
    say(`${cases.length} cases, ${RUNS} runs each on ours and on the floor`);

    /** The loop's longest delay while one server answers `body`: best of RUNS. */
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    async function delayOf(
      api: { baseUrl: string; apiKey: string; operator?: string },
      readLag: () => Promise<number>,
      c: (typeof cases)[number],
      body: Uint8Array,
    ) {
      let best = Infinity;
      let answer: Answer | undefined;
      for (let run = 0; run < RUNS; run++) {
        await readLag(); // resets the histogram
        await sleep(25); // it records from its second tick on
        answer = await send(api, c.route, body);
        await sleep(25); // ticks after the answer, to see a block just before it
        best = Math.min(best, await readLag());
      }
      return { ms: best, answer: answer! };
    }

    const rows: { what: string; floor: number; ours: number }[] = [];
    console.log("event-loop delay max (ms), best of runs: floor, ours, ours − floor, the case → ours' answer");
    for (const c of cases) {
      const body = c.body();
      const f = await delayOf(floor, floorLag, c, body);
      const o = await delayOf(ours, oursLag, c, body);
      const what = `${c.what}, ${(body.length / 1024).toFixed(0)} KB`;
      rows.push({ what, floor: f.ms, ours: o.ms });
      console.log(
        `${f.ms.toFixed(1).padStart(6)} ${o.ms.toFixed(1).padStart(6)} ${(o.ms - f.ms).toFixed(1).padStart(6)}  ${what} → ${o.answer.status}`,
      );
    }
    const worst = rows.reduce((a, b) => (b.ours > a.ours ? b : a));
    const widest = rows.reduce((a, b) => (b.ours - b.floor > a.ours - a.floor ? b : a));
    console.log(
      `longest hold: ours ${worst.ours.toFixed(1)} ms (goal ≤ ${BUDGET_MS} ms), the floor ${worst.floor.toFixed(1)} ms, ` +
        `ratio floor/ours ${(worst.floor / worst.ours).toFixed(2)}: ${worst.what}`,
    );
    console.log(
      `largest extra over the floor: ${(widest.ours - widest.floor).toFixed(1)} ms ` +
        `(floor ${widest.floor.toFixed(1)}, ours ${widest.ours.toFixed(1)}): ${widest.what}`,
    );
    console.log(
      `cases over ${BUDGET_MS} ms: ours ${rows.filter((r) => r.ours > BUDGET_MS).length}, floor ${rows.filter((r) => r.floor > BUDGET_MS).length}`,
    );
  } finally {
    floorProcess.kill();
    await cluster.close();
    await temporal.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
