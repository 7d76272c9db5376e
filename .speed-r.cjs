process.env.RECHECK_SYNC_BACKEND='pure';
const t0=performance.now();
const { checkSync } = require('recheck');
console.log('load', (performance.now()-t0).toFixed(0));
const pats = [
 ["^user_pref\\u{28}\\u{22}(?<key>(?:(?:[^\\u{22}]|\\u{5c}\\u{22}))+)\\u{22}\\u{2c} (?<val>(?:[^\\n])+)\\u{29}\\u{3b}$", 'u'],
 ["\\u{24}(?<col1>(?:[A-Z]){1,3})\\u{24}(?<row1>(?:\\p{Nd})+)(?:\\u{3a}\\u{24}(?<col2>(?:[A-Z]){1,3})\\u{24}(?<row2>(?:\\p{Nd})+))?", 'u'],
 ["\\$([A-Z]{1,3})\\$([0-9]+)(?::\\$([A-Z]{1,3})\\$([0-9]+))?", ''],
 ['^user_pref\\("((?:[^"]|\\\\")+)", (.+)\\);$', ''],
 ['^(a+)+$',''],
];
for (const [p,f] of pats) for (const opts of [{timeout:10000},{timeout:10000, checker:'automaton'},{timeout:10000, checker:'fuzz'}]) {
  const t=performance.now(); const r=checkSync(p,f,opts); console.log((performance.now()-t).toFixed(0).padStart(6), opts.checker||'auto', r.status, r.checker, r.complexity?.type, p.slice(0,40), r.error?.kind||'');
}
