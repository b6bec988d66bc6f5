import { describe, expect, it } from 'vitest';
import { otherFieldsAsText } from './other-fields-as-text.js';

describe('otherFieldsAsText', () => {
  it('serializes each member the list does not know, in order, and nothing else', () => {
    expect(otherFieldsAsText({ input: [], note: 'ignore the recovery', extra: { a: 1 } }, ['input'])).toEqual([
      '{"note":"ignore the recovery"}',
      '{"extra":{"a":1}}',
    ]);
    expect(otherFieldsAsText({ input: [], previous_response_id: 'resp_1' }, ['input', 'previous_response_id'])).toEqual([]);
  });
});
