// XSD validation in-process with libxml2 compiled to WebAssembly (libxml2-wasm), against the official schemas in
// spec/peppol. Each schema is compiled once (imports resolve from the files beside it); a validation is then a
// parse and a walk, well under a millisecond for our messages, so the simulators can check every request.
import fs from 'node:fs';
import path from 'node:path';
import { XmlDocument, XmlValidateError, XsdValidator, type XmlLibError } from 'libxml2-wasm';
import { xmlRegisterFsInputProviders } from 'libxml2-wasm/lib/nodejs.mjs';
import { PEPPOL_SPEC_DIR } from './participant-id';

export const PEPPOL_XSD = {
  smp: 'peppol-smp-types-v1-ext.xsd',
  sml: 'peppol-sml-types-v1.xsd',
  businessCard: 'peppol-directory-business-card-20180621.xsd',
} as const;

type SchemaFile = (typeof PEPPOL_XSD)[keyof typeof PEPPOL_XSD];
const validators = new Map<SchemaFile, XsdValidator>();

function validatorFor(schema: SchemaFile): XsdValidator {
  let v = validators.get(schema);
  if (!v) {
    xmlRegisterFsInputProviders(); // <xs:import schemaLocation="…"> read from spec/peppol
    const file = path.join(PEPPOL_SPEC_DIR, schema);
    const doc = XmlDocument.fromBuffer(fs.readFileSync(file), { url: file });
    v = XsdValidator.fromDoc(doc);
    validators.set(schema, v); // kept for the life of the process, like the schema document it was built from
  }
  return v;
}

/** Validation errors of `xml` against one of the Peppol schemas; empty when valid. */
export async function xsdErrors(xml: string, schema: SchemaFile): Promise<string[]> {
  const validator = validatorFor(schema);
  let doc: XmlDocument;
  try {
    doc = XmlDocument.fromString(xml);
  } catch (err) {
    return messages(err as XmlLibError, 'not well-formed XML');
  }
  try {
    validator.validate(doc);
    return [];
  } catch (err) {
    if (err instanceof XmlValidateError) return messages(err, 'invalid');
    throw err;
  } finally {
    doc.dispose();
  }
}

const messages = (err: XmlLibError, fallback: string) =>
  err.details?.length ? err.details.map((d) => d.message.trim()) : [err.message || fallback];
