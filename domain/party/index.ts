export * from './french-ids';
export * from './gobl-party';
