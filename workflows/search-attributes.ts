// Search attributes that make a job findable in the Temporal UI. Values are ids and states only.
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

export const PartyState = defineSearchAttributeKey('PartyState', SearchAttributeType.KEYWORD);
export const Siren = defineSearchAttributeKey('Siren', SearchAttributeType.KEYWORD);
export const JobStatus = defineSearchAttributeKey('JobStatus', SearchAttributeType.KEYWORD);
export const SiloEntryId = defineSearchAttributeKey('SiloEntryId', SearchAttributeType.KEYWORD);

export const ALL_SEARCH_ATTRIBUTES = [PartyState, Siren, JobStatus, SiloEntryId];
