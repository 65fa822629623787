// The rules of a job's start, as a pure decision over what the store read (the races are storage.test.ts's).
import { describe, expect, it } from 'vitest';
import { jobStartRefusal } from '../../../domain/jobs/job-start';
import type { JobStartEntry, JobStartFacts } from '../../../platform/store/jobs';

const entry = (over: Partial<JobStartEntry> = {}): JobStartEntry => ({
  id: 'e1',
  docSchema: 'org/party',
  siren: '356000000',
  name: 'La Poste SA',
  draftFaults: null,
  state: null,
  ...over,
});
const facts = (e?: JobStartEntry, sameSiren: JobStartFacts['sameSiren'] = []): JobStartFacts => ({
  ...(e && { entry: e }),
  sameSiren,
});
const registration = { docSchema: 'org/party', registers: true };
const unregistration = { docSchema: 'org/party', registers: false, unregisters: true };

describe('jobStartRefusal', () => {
  it('refuses a missing entry, then one holding other documents', () => {
    expect(jobStartRefusal(facts(), registration)).toEqual({ outcome: 'no-entry' });
    expect(jobStartRefusal(facts(entry({ docSchema: 'bill/invoice' })), registration)).toEqual({
      outcome: 'wrong-schema',
      schema: 'bill/invoice',
    });
  });

  it('refuses a registration while the SIREN is registered, naming the entry itself first', () => {
    const others = [{ id: 'e2', state: 'registered' }];
    expect(jobStartRefusal(facts(entry(), others), registration)).toEqual({
      outcome: 'siren-registered',
      siren: '356000000',
      entryId: 'e2',
    });
    expect(jobStartRefusal(facts(entry({ state: 'registered' }), others), registration)).toMatchObject({
      entryId: 'e1',
    });
    // Not a registration, or no SIREN: nothing to hold it back.
    expect(jobStartRefusal(facts(entry(), others), { ...registration, registers: false })).toBeUndefined();
    expect(jobStartRefusal(facts(entry({ siren: null, state: 'registered' })), registration)).toBeUndefined();
  });

  it('refuses a registration of a party kept invalid, after the SIREN check', () => {
    const faults = [{ message: 'bad' }] as JobStartEntry['draftFaults'];
    expect(jobStartRefusal(facts(entry({ draftFaults: faults })), registration)).toEqual({
      outcome: 'invalid-data',
      faults,
    });
    expect(
      jobStartRefusal(facts(entry({ draftFaults: faults }), [{ id: 'e2', state: 'registered' }]), registration),
    ).toMatchObject({ outcome: 'siren-registered' });
    expect(jobStartRefusal(facts(entry({ draftFaults: faults })), unregistration)).toMatchObject({
      outcome: 'not-registered',
    });
  });

  it('refuses an unregistration of an entry with nothing to undo', () => {
    for (const state of [null, 'void', 'cancelled'])
      expect(jobStartRefusal(facts(entry({ state })), unregistration)).toEqual({ outcome: 'not-registered', state });
    expect(jobStartRefusal(facts(entry({ state: 'registered' })), unregistration)).toBeUndefined();
    expect(jobStartRefusal(facts(entry({ state: 'processing' })), unregistration)).toBeUndefined();
  });
});
