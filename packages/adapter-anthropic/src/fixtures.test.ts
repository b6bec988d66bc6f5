import { fixtureDriftCases } from '@toolseal/adapter-testing';
import { describe, it } from 'vitest';
import { anthropicFixtures } from './__fixtures__/anthropic-messages-fixtures.js';

describe('Anthropic fixtures', () => {
  for (const { name, run } of fixtureDriftCases(anthropicFixtures, new URL('./__fixtures__/', import.meta.url))) it(name, run);
});
