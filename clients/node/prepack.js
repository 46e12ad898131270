#!/usr/bin/env node
// Run by `npm pack` / `npm publish` (the "prepack" script): copies the .proto files the bot loads into
// ./proto (Parlour's parlour/v1 and the vendored google/api), so the package works outside this
// repository. bot.js reads ./proto when it is there, and the repository's proto/ otherwise.
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');
const OUT = path.join(__dirname, 'proto');
const SOURCES = [
  [path.join(ROOT, 'proto', 'parlour'), path.join(OUT, 'parlour')],
  [path.join(ROOT, 'third_party', 'googleapis', 'google'), path.join(OUT, 'google')],
];

fs.rmSync(OUT, { recursive: true, force: true });
for (const [from, to] of SOURCES) {
  if (!fs.existsSync(from)) {
    console.error(`prepack: ${from} is missing; pack from a Parlour checkout`);
    process.exit(1);
  }
  fs.cpSync(from, to, { recursive: true, filter: (p) => fs.statSync(p).isDirectory() || p.endsWith('.proto') });
}
