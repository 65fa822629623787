// The independent checkers on a PDF: qpdf --check must accept it; pdfsig's report on its signatures is returned.
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';

export function qpdfCheckedPdfsig(pdf: Uint8Array): string {
  const file = path.join(os.tmpdir(), `checked-${crypto.randomUUID()}.pdf`);
  fs.writeFileSync(file, pdf);
  try {
    const qpdf = spawnSync('qpdf', ['--check', file], { encoding: 'utf8' });
    expect(qpdf.status, qpdf.stdout + qpdf.stderr).toBe(0);
    return spawnSync('pdfsig', [file], { encoding: 'utf8' }).stdout;
  } finally {
    fs.rmSync(file);
  }
}
