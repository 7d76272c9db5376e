/**
 * The oracle table: every `rules/<id>/oracle.(ts|js)` that default-exports an oracle, loaded once,
 * split by where its cases run (Python harness or bundle Node children). The oracle id must equal
 * the rule folder's id.
 */
import { ruleFoldersWith, ruleModuleUrl, MODULE_EXT } from '../contract/registry.js';
import type { Oracle } from './oracle-kit.js';
import type { BundleOracle } from './bundle/types.js';
import { importModule } from '../core/dynamic-import.js';

export interface OracleTable {
  python: ReadonlyMap<string, Oracle>;
  bundle: ReadonlyMap<string, BundleOracle>;
}

let cache: Promise<OracleTable> | undefined;

export function loadOracles(): Promise<OracleTable> {
  cache ??= (async () => {
    const ids = ruleFoldersWith('oracle');
    const loaded = await Promise.all(ids.map((id) => importModule(ruleModuleUrl(id, 'oracle'))));
    const python = new Map<string, Oracle>();
    const bundle = new Map<string, BundleOracle>();
    ids.forEach((id, i) => {
      const o = (loaded[i] as { default?: Oracle | BundleOracle }).default;
      if (!o || typeof o.plan !== 'function') throw new Error(`rules/${id}/oracle${MODULE_EXT} does not default-export an oracle`);
      if (o.id !== id) throw new Error(`rules/${id}/oracle${MODULE_EXT} declares id '${o.id}'; the id must equal the folder name '${id}'`);
      if ('layer' in o && o.layer === 'bundle') bundle.set(id, o);
      else python.set(id, o as Oracle);
    });
    return { python, bundle };
  })();
  return cache;
}
