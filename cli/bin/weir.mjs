#!/usr/bin/env node
// The `weir` command: loads cli/main.ts through tsx (Weir runs its TypeScript with it, as `npm start` does).
import process from 'node:process';
import { require as tsxRequire } from 'tsx/cjs/api';

const { main } = tsxRequire('../main.ts', import.meta.url);
const code = await main(process.argv);
// Keep-alive sockets to the API would hold the process for seconds after its work: it ends once its output is out.
process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
