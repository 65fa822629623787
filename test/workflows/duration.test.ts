import { msToNumber } from '@temporalio/common/lib/time';
import { describe, expect, it } from 'vitest';
import { durationMs } from '../../contract/duration';

describe('the approval deadline read by workflow code', () => {
  it('reads every duration the configuration accepts as the SDK did', () => {
    for (const d of ['250ms', '45s', '15m', '12h', '30d', '7 d', '0s']) expect(durationMs(d), d).toBe(msToNumber(d));
  });

  it('refuses what the configuration refuses', () => {
    for (const d of ['', '30', '1.5h', '2w', 'd', '-1d']) expect(() => durationMs(d), d).toThrow(/not a duration/);
  });
});
