/**
 * Names a plain JavaScript verifier may read without declaring them: ECMAScript built-ins, Node.js
 * (including CommonJS module-scope names) and browser/worker globals. A static list, so the result does
 * not depend on the Node version vaudit runs on.
 */
const ES = `globalThis Infinity NaN undefined eval isFinite isNaN parseFloat parseInt decodeURI decodeURIComponent
encodeURI encodeURIComponent escape unescape AggregateError Array ArrayBuffer Atomics BigInt BigInt64Array
BigUint64Array Boolean DataView Date Error EvalError FinalizationRegistry Float16Array Float32Array Float64Array
Function Int8Array Int16Array Int32Array Intl Iterator JSON Map Math Number Object Promise Proxy RangeError
ReferenceError Reflect RegExp Set SharedArrayBuffer String Symbol SyntaxError TypeError Uint8Array
Uint8ClampedArray Uint16Array Uint32Array URIError WeakMap WeakRef WeakSet AsyncDisposableStack DisposableStack
SuppressedError WebAssembly arguments`;

const NODE = `process Buffer global console require module exports __dirname __filename setTimeout clearTimeout
setInterval clearInterval setImmediate clearImmediate queueMicrotask structuredClone fetch Request Response
Headers FormData AbortController AbortSignal Blob File URL URLSearchParams TextEncoder TextDecoder
TextEncoderStream TextDecoderStream ReadableStream WritableStream TransformStream ByteLengthQueuingStrategy
CountQueuingStrategy CompressionStream DecompressionStream Event EventTarget CustomEvent MessageChannel
MessagePort MessageEvent BroadcastChannel DOMException WebSocket atob btoa crypto Crypto CryptoKey SubtleCrypto
performance Performance PerformanceEntry PerformanceMark PerformanceMeasure PerformanceObserver navigator Navigator
WebAssembly`;

const BROWSER = `window self document location history screen localStorage sessionStorage indexedDB alert confirm
prompt open close postMessage requestAnimationFrame cancelAnimationFrame requestIdleCallback cancelIdleCallback
getComputedStyle matchMedia XMLHttpRequest Image Node Element HTMLElement HTMLDocument Document DocumentFragment
NodeList HTMLCollection MutationObserver IntersectionObserver ResizeObserver DOMParser XMLSerializer
FileReader Worker SharedWorker ServiceWorker importScripts caches CSS customElements getSelection frames
parent top opener name status devicePixelRatio innerWidth innerHeight outerWidth outerHeight scrollX scrollY
KeyboardEvent MouseEvent InputEvent FocusEvent Storage`;

const JS_GLOBALS: ReadonlySet<string> = new Set(`${ES} ${NODE} ${BROWSER}`.split(/\s+/).filter(Boolean));

export function isJsGlobal(name: string): boolean {
  return JS_GLOBALS.has(name);
}
