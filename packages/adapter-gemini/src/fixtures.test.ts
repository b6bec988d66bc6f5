import { fixtureDriftCases } from '@toolseal/adapter-testing';
import { describe, it } from 'vitest';
import { geminiFixtures } from './__fixtures__/gemini-interactions-fixtures.js';

describe('Gemini fixtures', () => {
  for (const { name, run } of fixtureDriftCases(geminiFixtures, new URL('./__fixtures__/', import.meta.url))) it(name, run);
});
