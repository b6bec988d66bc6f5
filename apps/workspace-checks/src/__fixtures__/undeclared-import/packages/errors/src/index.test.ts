import { z } from 'zod';
import { expect, it } from 'vitest';

it('parses', () => expect(z.string().parse('a')).toBe('a'));
