import { describe, expect, it } from 'vitest';
import { safeError } from '../../../platform/observability/logger';

describe('error logging', () => {
  it('keeps the error name, code and message, and drops the query parameters and data a driver attaches', () => {
    const err = Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), {
      code: '22021',
      params: ['Élodie Dupré', 'X4RTBPFW4'],
      detail: 'Key (key)=(Élodie) already exists.',
      where: 'JSON data, line 1: ...Élodie',
      query: 'INSERT INTO entries …',
    });
    const logged = JSON.stringify(safeError(err));
    expect(JSON.parse(logged)).toMatchObject({ type: 'Error', code: '22021', message: err.message });
    expect(logged).not.toMatch(/Élodie|X4RTBPFW4|INSERT/);
  });
});
