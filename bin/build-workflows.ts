// `npm run build:workflows [-- <file>]`: the workflow bundle, built ahead of time (default dist/workflows.js).
// A worker given WORKFLOW_BUNDLE_FILE loads it instead of running webpack at every start: faster restarts and a
// lower memory peak. Rebuild it whenever workflows/ changes (the Dockerfile does, at image build).
import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflows } from '../worker/create-worker';
import { buildIdOf } from '../worker/versioning';

const out = path.resolve(process.argv[2] ?? 'dist/workflows.js');
const { code } = await bundleWorkflows();
fs.mkdirSync(path.dirname(out), { recursive: true });
fs.writeFileSync(out, code);
console.log(`workflow bundle: ${out} (${(code.length / 1024).toFixed(0)} kB), build id ${buildIdOf({ code }, {})}`);
