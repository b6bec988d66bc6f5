import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fixtureDriftCases } from './fixture-drift-cases.js';

describe('fixtureDriftCases', () => {
  let directory = '';
  let folder: URL;
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'fixture-drift-'));
    folder = pathToFileURL(`${directory}/`);
  });
  afterEach(() => {
    delete process.env['UPDATE_FIXTURES'];
    rmSync(directory, { recursive: true, force: true });
  });

  it('gives one named case per fixture, passing when the file is the pretty-printed value', () => {
    writeFileSync(join(directory, 'acme-single.json'), '{\n  "id": "resp_1"\n}\n');
    const cases = fixtureDriftCases({ 'acme-single.json': { id: 'resp_1' } }, folder);
    expect(cases.map((each) => each.name)).toEqual(['acme-single.json matches the SDK-typed source']);
    expect(() => cases[0]!.run()).not.toThrow();
  });

  it('fails when the file drifted, or is missing', () => {
    writeFileSync(join(directory, 'acme-single.json'), '{"id":"resp_1"}\n');
    const [drifted] = fixtureDriftCases({ 'acme-single.json': { id: 'resp_1' } }, folder);
    expect(() => drifted!.run()).toThrow(/drifted/);
    const [missing] = fixtureDriftCases({ 'acme-other.json': {} }, folder);
    expect(() => missing!.run()).toThrow();
  });

  it('rewrites the file first with UPDATE_FIXTURES=1', () => {
    writeFileSync(join(directory, 'acme-single.json'), 'stale');
    process.env['UPDATE_FIXTURES'] = '1';
    const [rewrite] = fixtureDriftCases({ 'acme-single.json': { id: 'resp_2' } }, folder);
    rewrite!.run();
    expect(readFileSync(join(directory, 'acme-single.json'), 'utf8')).toBe('{\n  "id": "resp_2"\n}\n');
  });
});
