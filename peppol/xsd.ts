// XSD validation in-process with libxml2 compiled to WebAssembly (xmllint-wasm), against the official schemas in
// spec/peppol. Each call runs in a worker thread (tens of ms): fine for simulators and tests, not a hot path.
import fs from 'node:fs';
import path from 'node:path';
import { validateXML } from 'xmllint-wasm';
import { PEPPOL_SPEC_DIR } from './participant-id';

export const PEPPOL_XSD = {
  smp: 'peppol-smp-types-v1-ext.xsd',
  sml: 'peppol-sml-types-v1.xsd',
  businessCard: 'peppol-directory-business-card-20180621.xsd',
} as const;

// Every schema of spec/peppol is offered to each validation: imports resolve by their local schemaLocation.
let files: { fileName: string; contents: string }[] | undefined;
const schemaFiles = () =>
  (files ??= fs.readdirSync(PEPPOL_SPEC_DIR).filter((f) => f.endsWith('.xsd')).map((f) => ({ fileName: f, contents: fs.readFileSync(path.join(PEPPOL_SPEC_DIR, f), 'utf8') })));

/** Validation errors of `xml` against one of the Peppol schemas; empty when valid. */
export async function xsdErrors(xml: string, schema: (typeof PEPPOL_XSD)[keyof typeof PEPPOL_XSD]): Promise<string[]> {
  const all = schemaFiles();
  const main = all.find((f) => f.fileName === schema);
  if (!main) throw new Error(`schema ${schema} is not in ${PEPPOL_SPEC_DIR}`);
  const r = await validateXML({ xml: [{ fileName: 'message.xml', contents: xml }], schema: [main], preload: all.filter((f) => f !== main) });
  return r.valid ? [] : r.errors.map((e) => e.message);
}
