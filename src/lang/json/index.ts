export { parseJsonDocument, joinPointer, splitPointer } from './parse.js';
export { decodeJsonString, embeddedOffsetMapper } from './strings.js';
