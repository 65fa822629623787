// XSD validation for the Peppol simulators, with libxml2 (libxml2-wasm) against the official schemas in
// spec/peppol. Each schema is compiled once, its imports read from the files beside it; a validation is then
// cheap enough to check every request.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { XmlDocument, XmlValidateError, XsdValidator, type XmlElement, type XmlLibError } from 'libxml2-wasm';
import { xmlRegisterFsInputProviders } from 'libxml2-wasm/lib/nodejs.mjs';

export const PEPPOL_SPEC_DIR = fileURLToPath(new URL('../spec/peppol/', import.meta.url));

const validators = new Map<string, XsdValidator>();

function validator(schema: string): XsdValidator {
  let v = validators.get(schema);
  if (!v) {
    if (validators.size === 0) xmlRegisterFsInputProviders(); // <xs:import schemaLocation="…"> is a local file
    const file = PEPPOL_SPEC_DIR + schema;
    v = XsdValidator.fromDoc(XmlDocument.fromBuffer(fs.readFileSync(file), { url: file }));
    validators.set(schema, v); // kept for the life of the process
  }
  return v;
}

const messages = (err: XmlLibError) => (err.details?.length ? err.details.map((d) => d.message.trim()) : [err.message]);

/** Why `target` (a document, or one element of it) does not match `schema`, a file of spec/peppol; [] when it does. */
export function schemaErrors(target: XmlDocument | XmlElement, schema: string): string[] {
  const v = validator(schema);
  try {
    if (target instanceof XmlDocument) v.validate(target);
    else v.validate(target);
    return [];
  } catch (err) {
    if (err instanceof XmlValidateError) return messages(err);
    throw err;
  }
}

/** As schemaErrors, for XML text (not well-formed is an error too). */
export function xmlSchemaErrors(xml: string, schema: string): string[] {
  let doc: XmlDocument;
  try {
    doc = XmlDocument.fromString(xml);
  } catch (err) {
    return messages(err as XmlLibError);
  }
  try {
    return schemaErrors(doc, schema);
  } finally {
    doc.dispose();
  }
}
