// The package's ES build (index.mjs) has the types of its main entry.
declare module 'fast-json-patch/index.mjs' {
  import jsonPatch from 'fast-json-patch';
  export default jsonPatch;
}
