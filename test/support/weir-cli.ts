import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The package's `weir` bin. */
export const WEIR_BIN = path.join(__dirname, '../../cli/bin/weir.mjs');

export interface WeirRun {
  status: number;
  stdout: string;
  stderr: string;
}

/** `weir …` as a user runs it: a child process, its exit status and what it printed. */
export function weir(args: string[], env: NodeJS.ProcessEnv = {}): Promise<WeirRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, [WEIR_BIN, ...args], { env: { ...process.env, ...env }, timeout: 60_000 }, (error, stdout, stderr) => {
      const status = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ status, stdout, stderr });
    });
  });
}

const made: string[] = [];

/** A fresh folder holding the given files (path → content); removeSpecFolders() removes it. */
export function specFolder(files: Record<string, string> = {}): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'weir-spec-'));
  made.push(dir);
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), content);
  }
  return dir;
}

/** Removes every folder specFolder made in this test file: call it from the file's afterAll. */
export function removeSpecFolders(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}
