// Search attributes that make a job findable in the Temporal UI. Values are ids and states only.
// Plain keys (what defineSearchAttributeKey returns), so workflow code imports nothing of @temporalio/common but types.
import type { SearchAttributeKey } from '@temporalio/common/lib/search-attributes';

const keyword = (name: string): SearchAttributeKey<'KEYWORD'> => ({ name, type: 'KEYWORD' });

export const PartyState = keyword('PartyState');
export const Siren = keyword('Siren');
export const JobStatus = keyword('JobStatus');
export const SiloEntryId = keyword('SiloEntryId');
/** What a job in WAIT waits for (contract/waiting-for.ts); unset otherwise. */
export const WaitingFor = keyword('WaitingFor');

export const ALL_SEARCH_ATTRIBUTES = [PartyState, Siren, JobStatus, SiloEntryId, WaitingFor];
