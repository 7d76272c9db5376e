/**
 * The app state model (src/lang/js/app-state.ts): what an application's JavaScript writes at a JSON
 * path, and "unknown" wherever it cannot follow the writes.
 */
import { describe, expect, it } from 'vitest';
import { appStateNear } from '../src/lang/js/app-state.js';

const script = (text: string) => ({ language: 'javascript', source: { text } });

/** The model for a verifier at /app/tasks/t.py next to the given scripts under /app/js. */
function model(scripts: Record<string, string>) {
  const files = new Map(Object.entries(scripts).map(([name, text]) => [`/app/js/${name}`, script(text)]));
  files.set('/app/tasks/t.py', { language: 'python', source: { text: '' } });
  return appStateNear(files, '/app/tasks/t.py', '/');
}

const FORM = `
function save() {
  const el = document.getElementById('loc');
  AppState.create({ location: el?.dataset?.value || 'Zoom' });
}
function render() { return ui.dropdown('loc', [{ value: 'Zoom' }, { value: 'Meet' }], 'Zoom'); }
`;

describe('app state model', () => {
  it('reads a collection and its fields through seeds, pushes, method parameters and listed options', () => {
    const m = model({
      'data.js': "const SEED = [{ id: 1, location: 'Phone' }];",
      'state.js': `const AppState = {
        pages: [],
        reset() { this.pages = JSON.parse(JSON.stringify(SEED)); },
        create(data) { const p = { id: 2, location: data.location || 'Zoom' }; this.pages.push(p); },
        remove(id) { this.pages = this.pages.filter((p) => p.id !== id); },
        save() { return JSON.stringify({ pages: this.pages }); },
      };`,
      'app.js': FORM,
    });
    expect(m?.kind(['pages'])).toBe('array');
    expect(m?.strings(['pages', '*', 'location'])?.sort()).toEqual(['Meet', 'Phone', 'Zoom']);
  });

  it('is unknown where a write cannot be followed', () => {
    const base = "const AppState = { pages: [{ location: 'Zoom' }], create(data) { this.pages.push({ location: data.location }); } };";
    // a typed-in value
    expect(model({ 's.js': base, 'a.js': "AppState.create({ location: document.getElementById('x').value });" })?.strings(['pages', '*', 'location'])).toBeUndefined();
    // an update merged into an element, a field written in place, elements rewritten by map, a computed-key write
    for (const extra of [
      'function u(id, up) { const p = AppState.pages.find((x) => x.id === id); Object.assign(p, up); }',
      'function u(p, v) { p.location = v; }',
      "function u(k, v) { let o = AppState.pages; o[k] = v; }",
    ]) expect(model({ 's.js': base, 'a.js': `AppState.create({ location: 'Meet' }); ${extra}` })?.strings(['pages', '*', 'location']), extra).toBeUndefined();
    // a computed-key write through an object the model cannot resolve (a call's result), and the setters of
    // lodash, Reflect and Object: any object, any field
    for (const extra of [
      'function u(field, v) { this.getCurrentPage()[field] = v; }',
      "function u(path, v) { _.set(AppState, path, v); }",
      'function u(k, v) { Reflect.set(AppState.pages[0], k, v); }',
      'function u(k, v) { Object.defineProperty(findPage(1), k, { value: v }); }',
    ]) expect(model({ 's.js': base, 'a.js': `AppState.create({ location: 'Meet' }); ${extra}` })?.strings(['pages', '*', 'location']), extra).toBeUndefined();
    // an element a collection method picks keeps the collection's names: a write into another collection does not open this one
    expect(model({ 's.js': `${base} const Other = { rows: [] };`, 'a.js': "AppState.create({ location: 'Meet' }); function u(id, k, v) { Other.rows.find((r) => r.id === id)[k] = v; }" })?.strings(['pages', '*', 'location'])?.sort()).toEqual(['Meet', 'Zoom']);
    // elements rewritten by map: the path is lost, but every write of the field's name is still a literal
    const mapped = "function u() { AppState.pages = AppState.pages.map((p) => ({ ...p, location: 'X' })); }";
    expect(model({ 's.js': base, 'a.js': `AppState.create({ location: 'Meet' }); ${mapped}` })?.strings(['pages', '*', 'location'])?.sort()).toEqual(['Meet', 'X', 'Zoom']);
    // written as an array in one place and an object in another
    expect(model({ 's.js': 'const S = { styles: [] }; function f(x) { S.styles = { a: x }; }' })?.kind(['styles'])).toBeUndefined();
  });

  it('tells numbers the app stores as typed or copied from numbers it computes', () => {
    const typed = model({ 's.js': "const S = { rows: [{ temp: 98.4, spacing: { value: -0.02 } }], add(t) { this.rows.push({ temp: parseFloat(t) || null, spacing: { value: Number(t) } }); }, copy(r) { this.rows.push({ temp: r.temp, spacing: JSON.parse(JSON.stringify(r.spacing)) }); } };" });
    expect(typed?.verbatimNumbers(['rows', '*', 'temp'])).toBe(true);
    expect(typed?.verbatimNumbers(['rows', '*', 'spacing', 'value'])).toBe(true);
    for (const extra of ['function f(r) { r.temp += 0.1; }', 'function f(r, c) { S.rows.push({ temp: c * 9 / 5 + 32 }); }', "function f(k, v) { S.rows[k] = v; }"])
      expect(model({ 's.js': "const S = { rows: [{ temp: 98.4 }] };", 'a.js': extra })?.verbatimNumbers(['rows', '*', 'temp']), extra).toBe(false);
  });

  it('reads the options of a choice control that shows a field, and ISO dates', () => {
    const ui = "const S = { settings: { tz: 'UTC' } }; function set(p, v) { S.settings[p] = v; } function render() { const s = S.settings; return dd('tz', [{ value: 'UTC' }, { value: 'Asia/Tokyo' }], s.tz); }";
    expect(model({ 'a.js': ui })?.strings(['settings', 'tz'])?.sort()).toEqual(['Asia/Tokyo', 'UTC']);
    expect(model({ 'a.js': `${ui} function edit() { return box('tz-text', S.settings.tz); }` })?.strings(['settings', 'tz'])).toBeUndefined();
    const dates = "const S = { tasks: [{ due: '2026-03-09T09:00:00Z' }, { due: null }] }; function setDue(t, d) { t.due = d; } function snooze(t) { setDue(t, new Date().toISOString().split('T')[0]); }";
    expect(model({ 'a.js': dates })?.dates(['tasks', '*', 'due'])).toBe(true);
    expect(model({ 'a.js': `${dates} function note(t) { setDue(t, document.getElementById('note').value); }` })?.dates(['tasks', '*', 'due'])).toBe(false);
  });

  it('finds the scripts of the nearest folder that has any, and none when there are none', () => {
    const files = new Map([
      ['/suite/app/js/s.js', script("const S = { items: [] };")],
      ['/suite/app/tasks/deep/t.py', { language: 'python', source: { text: '' } }],
      ['/suite/other/t.py', { language: 'python', source: { text: '' } }],
    ]);
    expect(appStateNear(files, '/suite/app/tasks/deep/t.py', '/suite')?.kind(['items'])).toBe('array');
    expect(appStateNear(files, '/suite/other/t.py', '/suite/other')).toBeUndefined();
  });
});
