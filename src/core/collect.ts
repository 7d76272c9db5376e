/**
 * A full garbage collection on request, for a one-shot run that holds a large heap between phases.
 *
 * V8 sets the size at which it next collects the old generation from the live size at the last
 * collection, times a factor of up to 4: a run that builds 200 MB of analyses and then makes garbage
 * in the next phase grows its heap (and its resident memory, which it keeps) far past what it holds.
 * A collection at a phase boundary resets that size from what is live there. It costs a full mark of
 * the live heap (≈ 0.15–0.3 s at 250 MB), so it is asked for only above `LARGE_HEAP`.
 *
 * `gc` is exposed by turning `--expose-gc` on for the creation of one context and off again: the flags
 * are back as they were when the run ends (the code cache is keyed by them, see bin/bundle.js).
 */
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Live heap above which a phase boundary collects (webarena-infinity holds ≈ 200–260 MB there; the
 *  other corpora stay under 100 MB). */
const LARGE_HEAP = 150 * 1024 * 1024;

let collect: (() => void) | undefined;

function collector(): () => void {
  if (collect) return collect;
  const own = (globalThis as { gc?: () => void }).gc;
  if (typeof own === 'function') return (collect = own);
  setFlagsFromString('--expose-gc');
  try {
    collect = runInNewContext('gc') as () => void;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
  return collect;
}

/** Whether the heap in use is large (see above): a run under it has nothing to gain from releasing
 *  what it could compute again. */
export function heapIsLarge(): boolean {
  return getHeapStatistics().used_heap_size >= LARGE_HEAP;
}

/** Heap in use after the last collection asked for here. */
let liveAfter = 0;

/** Collect now when the heap in use is large (see above); returns whether it did. */
export function collectIfLarge(): boolean {
  if (!heapIsLarge()) return false;
  collector()();
  liveAfter = getHeapStatistics().used_heap_size;
  return true;
}

/** Growth of a large heap since the last collection asked for here at which `collectIfGrown` collects. */
const GROWTH = 40 * 1024 * 1024;

/**
 * Collect now when the heap in use is large and has grown by `GROWTH` since the last collection asked
 * for here: called between the files of a one-shot run's pass, where each file leaves garbage that
 * lived long enough to be promoted (its flow until its rules ran, the rules' per-file memos). V8 would
 * let the heap grow to its limit first, up to 4× the live size on an idle machine (webarena-infinity:
 * the pass took the heap in use from 191 to 277 MB before the collection between its files and task
 * files found 238 live). Returns whether it collected.
 */
export function collectIfGrown(): boolean {
  if (getHeapStatistics().used_heap_size - liveAfter < GROWTH) return false;
  // which collects only a large heap
  return collectIfLarge();
}
