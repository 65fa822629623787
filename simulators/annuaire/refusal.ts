// A refusal of the simulated directory, which the server answers as the PPF does: problem+json with titre, statut,
// detail.
export class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
  ) {
    super(detail);
  }
}
