#!/usr/bin/env node
// The `weir` command: loads cli/main.ts through tsx (Weir runs its TypeScript with it, as `npm start` does).
import process from 'node:process';
import { require as tsxRequire } from 'tsx/cjs/api';

const { main } = tsxRequire('../main.ts', import.meta.url);
process.exitCode = await main(process.argv);
