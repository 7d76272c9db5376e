/** Plain JavaScript verifier analysis (acorn): scopes, globals, and the facts rules read. */
export { jsScopes } from './scope.js';
export { unboundedCall, setSizeComparison, everyHasComparison, collapsedContentComparison, setDeepEqual, floatEquality } from './facts.js';
export { swallowingCatch, carriesCaught, isJsFunction, eachOwnNode, findOwn } from './flow.js';
export { programOf, propName, type JsFunction } from './nodes.js';
