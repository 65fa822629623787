// A party's stored credentials: what the service holds to act for it elsewhere (seed §5: the OAuth token of a public
// invoicing portal bound to the supplier's account). Write-only secrets: sealed at rest, never returned, never logged;
// only their kind and descriptive details are shown.
import type { DataBox } from '../../platform/crypto/data-box';
import type { Db } from '../../platform/store/db';
import { credentialView, deleteCredential, listCredentials, putCredential } from '../../platform/store/credentials';
import { DomainError } from '../errors';

const SECRET_FIELDS = ['access_token', 'refresh_token', 'key'] as const;

/** What a sealed credential is bound to: a blob copied into another row does not open. */
export const credentialContext = (entryId: string, name: string) => `credential:${entryId}:${name}`;

export type CredentialInput = { kind: string } & Record<string, unknown>;

export async function storeCredential(
  deps: { db: Db; box: DataBox },
  workspaceId: string,
  entryId: string,
  name: string,
  input: CredentialInput,
) {
  const secrets = Object.fromEntries(SECRET_FIELDS.filter((f) => f in input).map((f) => [f, input[f]]));
  const details = Object.fromEntries(
    Object.entries(input).filter(([k]) => k !== 'kind' && !(SECRET_FIELDS as readonly string[]).includes(k)),
  );
  const row = await putCredential(deps.db, {
    workspaceId,
    entryId,
    name,
    kind: input.kind,
    sealed: deps.box.seal(Buffer.from(JSON.stringify(secrets)), credentialContext(entryId, name)),
    details,
  });
  return credentialView(row);
}

export async function credentialsOf(db: Db, entryId: string) {
  return (await listCredentials(db, entryId)).map(credentialView);
}

export async function removeCredential(db: Db, entryId: string, name: string): Promise<void> {
  if (!(await deleteCredential(db, entryId, name)))
    throw new DomainError('not-found', `credential "${name}" of entry ${entryId} not found`);
}
