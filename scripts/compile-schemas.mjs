#!/usr/bin/env node
// Build step: writes the task-schema validators as ajv standalone code to dist/schemas/,
// so a run does not compile the schemas at start-up. A hash of the schemas is embedded;
// stale output is ignored at run time (src/suites/schema.ts).
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PRECOMPILED_VALIDATORS, standaloneValidatorsSource } from '../dist/src/suites/schema.js';

mkdirSync(path.dirname(PRECOMPILED_VALIDATORS), { recursive: true });
writeFileSync(PRECOMPILED_VALIDATORS, standaloneValidatorsSource());
console.log(`compiled task schemas → ${path.relative(process.cwd(), PRECOMPILED_VALIDATORS)}`);
