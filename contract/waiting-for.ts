// What a job in WAIT waits for, one word the API (`waiting_for`) and the Temporal UI (the WaitingFor search
// attribute) share: a day its changes take effect, or, from its mandate, the signer (to sign and submit), the
// operator's decision on the submission, a second operator's (four eyes: a first approval is recorded), or a new
// submission after the operator rejected one. The party's state says `processing` for both the signer and the
// resubmission: this tells them apart.
export const WAITING_FOR = ['signer', 'decision', 'second-decision', 'resubmission', 'effective-date'] as const;
export type WaitingFor = (typeof WAITING_FOR)[number];
