export { parseJsonDocument, joinPointer, splitPointer, escapePointerToken } from './parse.js';
export type { JsonDocument, JsonParseResult, JsonSyntaxError, DuplicateMember } from './parse.js';
export { decodeJsonString, embeddedOffsetMapper } from './strings.js';
export type { DecodedString } from './strings.js';
export { jsonDocumentOf } from './cache.js';
