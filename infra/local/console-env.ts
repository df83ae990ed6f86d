/**
 * The environment `npm start` gives Weir's code before any of it loads (start.ts imports this first): logs a
 * person can read in a terminal (Powertools' development mode indents each JSON line; piped, they stay one
 * JSON object per line).
 */
if (process.stdout.isTTY) process.env.POWERTOOLS_DEV ??= 'true';
