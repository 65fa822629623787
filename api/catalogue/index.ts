// The operations not yet declared with their handlers (web/http/route.ts): apps/peppol/v1 and our SMP.
import * as peppol from './peppol';

export const CATALOGUE = [peppol];
