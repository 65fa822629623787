// With RECORD_HISTORIES=1, a test's workflow history is saved as a replay fixture (test/workflows/replay/histories): the
// workflow code of later commits must replay it.
import fs from 'node:fs';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';

export async function maybeRecordHistory(handle: WorkflowHandle, name: string): Promise<void> {
  if (!process.env.RECORD_HISTORIES) return;
  const file = path.join(__dirname, '..', 'workflows', 'replay', 'histories', `${name}.json`);
  fs.writeFileSync(file, historyToJSON(await handle.fetchHistory()));
}
