// Loaded before each server test (node --import): says what to run when the test's Node.js
// packages are missing, instead of a bare "Cannot find package".
import fs from 'node:fs';

if (!fs.existsSync(new URL('./node_modules/openai/package.json', import.meta.url))) {
  throw new Error('tests/app/server/node_modules has no openai package: run packaging/setup.sh ' +
    '(it runs `npm ci` there)');
}

if (!fs.existsSync(new URL('./node_modules/ws/package.json', import.meta.url))) {
  throw new Error('tests/app/server/node_modules has no ws package: run packaging/setup.sh ' +
    '(it runs `npm ci` there)');
}
