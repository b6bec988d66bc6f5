import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { filesInPlace } from './files-in-place.js';

const directory = mkdtempSync(join(tmpdir(), 'toolseal-files-in-place-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

function storeFilesIn(name: string): string {
  const folder = join(directory, name);
  mkdirSync(folder);
  writeFileSync(join(folder, 'store.db'), 'db');
  writeFileSync(join(folder, 'store.db-shm'), 'shm');
  return folder;
}

describe('filesInPlace', () => {
  it('keeps checking the files it was given after the process changes directory (a relative path is resolved once)', () => {
    const first = storeFilesIn('first');
    const second = storeFilesIn('second');
    const before = process.cwd();
    try {
      process.chdir(first);
      const files = filesInPlace('store.db');
      // Another folder holding files of the same names: not the ones opened, and not checked.
      process.chdir(second);
      expect(() => files.check()).not.toThrow();
      unlinkSync(join(first, 'store.db-shm'));
      expect(() => files.check()).toThrow('was moved, deleted or replaced');
    } finally {
      process.chdir(before);
    }
  });

  it('throws once the file is replaced by another under its name', () => {
    const folder = storeFilesIn('replaced');
    // Held open, as SQLite holds the store's file: its inode cannot be reused while it is.
    const held = openSync(join(folder, 'store.db'), 'r');
    try {
      const files = filesInPlace(join(folder, 'store.db'));
      expect(() => files.check()).not.toThrow();
      unlinkSync(join(folder, 'store.db'));
      writeFileSync(join(folder, 'store.db'), 'another');
      expect(() => files.check()).toThrow('was moved, deleted or replaced');
    } finally {
      closeSync(held);
    }
  });
});
