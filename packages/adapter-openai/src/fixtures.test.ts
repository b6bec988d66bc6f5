import { fixtureDriftCases } from '@toolseal/adapter-testing';
import { describe, it } from 'vitest';
import { openaiFixtures } from './__fixtures__/openai-responses-fixtures.js';

describe('OpenAI fixtures', () => {
  for (const { name, run } of fixtureDriftCases(openaiFixtures, new URL('./__fixtures__/', import.meta.url))) it(name, run);
});
