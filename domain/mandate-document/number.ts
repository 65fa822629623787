// The mandate number of the DSE v3.2 model form (part 6): SIRENcompany_SIRENofPA_YYYYMMDD_NN, e.g.
// 584796231_987654325_20250707_01. Numbers issued before carry our matricule in the PA's place
// (552032534_0145_20261122_01): they stay as they were issued, and nothing reads a meaning out of that part.

/** The PA's part of the numbers it issues: its SIREN, or its matricule when it has none (as part 2 of the form). */
export const mandateIssuer = (pa: { siren?: string; matricule: string }): string => pa.siren || pa.matricule;
