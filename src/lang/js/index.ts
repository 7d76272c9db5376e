/** Plain JavaScript verifier analysis (acorn): scopes, globals, and the facts rules read. */
export { jsScopes, type JsScopes, type JsBinding, type JsReference } from './scope.js';
export { isJsGlobal, JS_GLOBALS } from './globals.js';
export { unboundedCall, setSizeComparison, everyHasComparison, setFromSequence, calleeModule, type UnboundedCall, type SetComparison } from './facts.js';
export { swallowingCatch } from './flow.js';
