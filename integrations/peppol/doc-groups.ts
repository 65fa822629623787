// Document groups a party is published for, resolved from the Peppol code lists v9.7 (never hand-typed ids).
import fs from 'node:fs';
import path from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { PEPPOL_SPEC_DIR } from './participant-id';

export interface ProcessRef {
  scheme: string;
  value: string;
}

export interface DocumentTypeRef {
  name: string;
  /** Document identifier scheme, e.g. `busdox-docid-qns`. */
  scheme: string;
  value: string;
  processes: ProcessRef[];
}

export const DOC_GROUPS = ['france', 'ubl-invoice'] as const;
export type DocGroup = (typeof DOC_GROUPS)[number];

export const isDocGroup = (name: string): name is DocGroup => (DOC_GROUPS as readonly string[]).includes(name);

const FRANCE_PROCESSES = ['urn:peppol:france:billing:regulated', 'urn:peppol:france:billing:non-regulated'];
const BILLING_PROCESS = 'urn:fdc:peppol.eu:2017:poacc:billing:01:1.0';
// BIS Billing 3.0's customization picks Invoice and CreditNote, not the national variants; the UBL namespace
// leaves out the CII syntax binding of the same customization.
const BIS_BILLING_3 = '##urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0::';
const UBL = 'urn:oasis:names:specification:ubl:schema:xsd:';

interface CodeListDoc {
  name: string;
  scheme: string;
  value: string;
  state: string;
  community: string;
  processes: ProcessRef[];
}

let cache: { docs: CodeListDoc[]; activeProcesses: Set<string> } | undefined;

function codeLists() {
  if (cache) return cache;
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '',
    parseTagValue: false,
    isArray: (n) => ['document-type', 'process-id', 'process'].includes(n),
  });
  /** A document type as the code list's XML writes it. */
  type CodeListEntry = Record<'name' | 'scheme' | 'value' | 'state' | 'domain-community', string> & {
    'process-id'?: ProcessRef[];
  };
  const read = (file: string) => parser.parse(fs.readFileSync(path.join(PEPPOL_SPEC_DIR, file), 'utf8'));
  const types = read('Peppol_Code_Lists_-_Document_types_v9.7.xml')['document-types'][
    'document-type'
  ] as CodeListEntry[];
  const procs = read('Peppol_Code_Lists_-_Processes_v9.7.xml').processes.process as Record<string, string>[];
  cache = {
    docs: types.map((d) => ({
      name: d.name,
      scheme: d.scheme,
      value: d.value,
      state: d.state,
      community: d['domain-community'],
      processes: (d['process-id'] ?? []).map((p) => ({ scheme: p.scheme, value: p.value })),
    })),
    activeProcesses: new Set(procs.filter((p) => p.state === 'active').map((p) => `${p.scheme}::${p.value}`)),
  };
  return cache;
}

/** Keeps the wanted processes of each document type; fails loudly if the code list no longer has them. */
function select(pick: (d: CodeListDoc) => boolean, processes: string[]): DocumentTypeRef[] {
  const { docs, activeProcesses } = codeLists();
  const out = docs
    .filter((d) => d.state === 'active' && pick(d))
    .map((d) => ({
      name: d.name,
      scheme: d.scheme,
      value: d.value,
      processes: d.processes.filter(
        (p) => processes.includes(p.value) && activeProcesses.has(`${p.scheme}::${p.value}`),
      ),
    }));
  const incomplete = out.find((d) => d.processes.length !== processes.length);
  if (out.length === 0 || incomplete)
    throw new Error(`code list v9.7 does not define the expected document types (${incomplete?.name ?? 'none found'})`);
  return out;
}

const groups = new Map<DocGroup, DocumentTypeRef[]>();

/** The document types (with their processes) of a group. */
export function docGroup(name: DocGroup): DocumentTypeRef[] {
  let g = groups.get(name);
  if (!g) {
    g =
      name === 'france'
        ? select((d) => d.community === 'POAC-France', FRANCE_PROCESSES)
        : select((d) => d.value.startsWith(UBL) && d.value.includes(BIS_BILLING_3), [BILLING_PROCESS]);
    groups.set(name, g);
  }
  return g;
}
