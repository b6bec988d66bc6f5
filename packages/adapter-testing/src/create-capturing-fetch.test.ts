import { describe, expect, it } from 'vitest';
import { createCapturingFetch } from './create-capturing-fetch.js';

describe('createCapturingFetch', () => {
  it('answers from the script in order and records url, method and body', async () => {
    const { fetch, captured } = createCapturingFetch([{ id: 'first' }, { id: 'second' }]);
    const first = await fetch('https://api.example.invalid/v1/a', { method: 'POST', body: '{"x":1}' });
    const second = await fetch(new Request('https://api.example.invalid/v1/b', { method: 'PUT', body: 'two' }));
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('application/json');
    expect(await first.json()).toEqual({ id: 'first' });
    expect(await second.json()).toEqual({ id: 'second' });
    expect(captured).toEqual([
      { url: 'https://api.example.invalid/v1/a', method: 'POST', body: '{"x":1}' },
      { url: 'https://api.example.invalid/v1/b', method: 'PUT', body: 'two' },
    ]);
  });

  it('records a request without a body as GET with empty text', async () => {
    const { fetch, captured } = createCapturingFetch([{}]);
    await fetch(new URL('https://api.example.invalid/v1/models'));
    expect(captured).toEqual([{ url: 'https://api.example.invalid/v1/models', method: 'GET', body: '' }]);
  });

  it('answers 500 past the end of the script, and still records the request', async () => {
    const { fetch, captured } = createCapturingFetch([]);
    const reply = await fetch('https://api.example.invalid/v1/a', { method: 'POST', body: 'x' });
    expect(reply.status).toBe(500);
    expect(captured).toHaveLength(1);
  });
});
