import { runInNewContext } from 'node:vm';
import { resolveJsonLimits } from '@toolseal/guard';
import { describe, expect, it } from 'vitest';
import { copy, loadToolSpecs } from './__fixtures__/load-fixtures.js';
import { RegistryError } from './registry-error.js';
import {
  createToolRegistry,
  DEFAULT_CONTROL_PROVENANCE,
  DEFAULT_OUTPUT_LIMITS,
  UNREGISTERED_TOOL_NAME,
} from './tool-registry.js';
import type { OutputLimits, ToolSpec } from './tool-spec.js';

const specs = loadToolSpecs();

/** `message` is a pattern, or a text the message must contain. */
function expectRegistryError(build: () => unknown, message: RegExp | string): void {
  let thrown: unknown;
  try {
    build();
  } catch (error) {
    thrown = error;
  }
  expect(RegistryError.isInstance(thrown)).toBe(true);
  expect((thrown as Error).message).toMatch(message);
}

function withOutput(mutate: (schema: Record<string, unknown>) => void): ToolSpec {
  const spec = copy(specs.kbSearch);
  mutate(spec.output_schema as Record<string, unknown>);
  return spec;
}

function hitSchema(spec: ToolSpec): Record<string, unknown> {
  const output = spec.output_schema as { properties: { hits: { items: Record<string, unknown> } } };
  return output.properties.hits.items;
}

describe('sensitive_keys.allow: a tool lifts a business name from the sensitive list', () => {
  const survey = () =>
    withOutput((schema) => {
      (schema.properties as Record<string, unknown>)['response_id'] = { type: 'string', maxLength: 16 };
    });

  it('refuses the name without it, registers with it, and scans that tool only with the name lifted', () => {
    expect(() => createToolRegistry([survey()])).toThrow(/"response_id"/);
    const spec = survey();
    spec.sensitive_keys = { allow: ['response_id'] };
    const tool = createToolRegistry([spec]).get(spec.contract.tool_name);
    expect(tool?.sensitiveAllow).toEqual(['response_id']);
    expect(tool?.scanSensitiveKeys({ response_id: 'R-1', nested: [{ responseId: 'R-2' }] })).toEqual([]);
    // Only that exact normalized name: everything else stays refused.
    expect(tool?.scanSensitiveKeys({ token: 'x', call_id: 'c' }).map((hit) => hit.key)).toEqual(['token', 'call_id']);
    // Another tool of the same registry keeps the full list.
    const other = createToolRegistry([spec, copy(specs.getOrder)]).get(specs.getOrder.contract.tool_name);
    expect(other?.scanSensitiveKeys({ response_id: 'R-1' }).map((hit) => hit.key)).toEqual(['response_id']);
  });

  it('lifts only a property the output schema declares, and never a credential or control field', () => {
    const undeclared = survey();
    undeclared.sensitive_keys = { allow: ['response_id', 'subtenant_id'] };
    expect(() => createToolRegistry([undeclared])).toThrow(/sensitive_keys.allow: "subtenant_id" is not a property output_schema declares/);
    for (const key of ['password', 'request_sha256', 'idempotency_key', 'tenant_id']) {
      const spec = withOutput((schema) => {
        (schema.properties as Record<string, unknown>)[key] = { type: 'string', maxLength: 16 };
      });
      spec.sensitive_keys = { allow: [key] };
      expect(() => createToolRegistry([spec]), key).toThrow(/cannot be lifted/);
    }
  });

  it('never lifts a cloud credential name such as aws_secret_access_key, like password', () => {
    // Fuzzing review: the name was liftable, so a tool could put an AWS secret into `data`. The
    // guard's `isLiftableKeyName` decides; the registry refuses it at start-up.
    for (const key of ['aws_secret_access_key', 'password']) {
      const spec = withOutput((schema) => {
        (schema.properties as Record<string, unknown>)[key] = { type: 'string', maxLength: 100 };
      });
      spec.sensitive_keys = { allow: [key] };
      let registered: string | undefined;
      try {
        registered = createToolRegistry([spec]).toolNames.join();
      } catch (error) {
        expect(RegistryError.isInstance(error), key).toBe(true);
        expect((error as Error).message, key).toContain(JSON.stringify(key));
      }
      expect(registered, `${key} was lifted`).toBeUndefined();
    }
  });
});

describe('createToolRegistry', () => {
  it('registers the three shared tools with their contracts, limits and control identity', () => {
    const registry = createToolRegistry([specs.getOrder, specs.createRefundDraft, specs.kbSearch]);
    expect(registry.toolNames).toEqual(['get_order', 'create_refund_draft', 'kb_search']);
    expect(registry.get('get_order')?.contract).toEqual(specs.getOrder.contract);
    expect(registry.get('get_order')?.sourceLabel).toBe('orders');
    expect(registry.get('kb_search')?.allowIncomplete).toBe(true);
    expect(registry.get('get_order')?.allowIncomplete).toBe(false);
    expect(registry.get('kb_search')?.limits.maxBytes).toBe(8192);
    expect(registry.get('get_order')?.echo).toEqual([
      { output: '/order_ref', input: '/order_id', outputSegments: ['order_ref'], inputSegments: ['order_id'] },
    ]);
    expect(registry.get('kb_search')?.links.pointers).toEqual(['/hits/*/source']);
    expect(registry.control).toEqual(DEFAULT_CONTROL_PROVENANCE);
    expect(registry.unregisteredContract.tool_name).toBe(UNREGISTERED_TOOL_NAME);
    expect(registry.unregisteredContract.producer_revision).toBe(DEFAULT_CONTROL_PROVENANCE.producer_revision);
  });

  it('collects the fields each output schema declares, once at start-up (violation paths are cut to them)', () => {
    const registry = createToolRegistry([specs.getOrder, specs.kbSearch]);
    const getOrder = registry.get('get_order');
    expect(getOrder?.outputFields.templates).toEqual([
      '/order_ref',
      '/status',
      '/amount',
      '/unit',
      '/lines',
      '/lines/*',
      '/lines/*/line_id',
      '/lines/*/quantity',
      '/lines/*/amount',
    ]);
    expect(getOrder?.outputFields.declaredPrefix('/lines/3/alice_smith_42/token')).toBe('/lines/3');
    expect(registry.get('kb_search')?.outputFields.declares('/hits/0/source')).toBe(true);
    // More places than the guard's limit (10,000) is a contract problem, refused at start-up (before
    // the pinned Ajv spends seconds compiling them).
    const names = Array.from({ length: 10_001 }, (_, index) => `f${index}`);
    const spec = copy(specs.getOrder);
    spec.output_schema = {
      type: 'object',
      additionalProperties: false,
      properties: Object.fromEntries(names.map((name) => [name, { type: 'boolean' }])),
    };
    delete spec.echo;
    expectRegistryError(() => createToolRegistry([spec]), 'output_schema declares more than 10000 fields');
  });

  it('accepts a nullable field (one type and "null")', () => {
    const spec = withOutput((schema) => {
      (schema.properties as Record<string, unknown>).next_page = { type: ['integer', 'null'], minimum: 2, maximum: 50 };
    });
    const tool = createToolRegistry([spec]).get('kb_search');
    expect(tool?.validateOutput({ hits: [], next_page: null })).toBe(true);
    expect(tool?.validateOutput({ hits: [], next_page: 'x' })).toBe(false);
  });

  it('fills unspecified limits from the defaults', () => {
    const spec = copy(specs.getOrder);
    spec.limits = { maxBytes: 100 };
    const tool = createToolRegistry([spec]).get('get_order');
    expect(tool?.limits).toEqual({ ...DEFAULT_OUTPUT_LIMITS, maxBytes: 100 });
    expect(tool?.handlerOutputLimits.maxDepth).toBe(DEFAULT_OUTPUT_LIMITS.maxDepth + 1);
  });

  it('looks names up as own entries only', () => {
    const registry = createToolRegistry([specs.getOrder]);
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'GET_ORDER', 'get_order ']) {
      expect(registry.get(name)).toBeUndefined();
    }
    expect(registry.get(42 as unknown as string)).toBeUndefined();
  });

  it('keeps a private frozen copy: changing the host spec later changes nothing', () => {
    const spec = copy(specs.getOrder);
    const registry = createToolRegistry([spec]);
    spec.contract.producer_revision = 'tampered';
    spec.source_label = 'tampered';
    expect(registry.get('get_order')?.contract.producer_revision).toBe('orders-mock-v2');
    expect(registry.get('get_order')?.sourceLabel).toBe('orders');
    expect(Object.isFrozen(registry.get('get_order')?.contract)).toBe(true);
  });

  it('accepts a custom control identity and rejects a malformed one', () => {
    const registry = createToolRegistry([], { control: { source_label: 'host-a', producer_revision: 'dispatcher-9' } });
    expect(registry.control).toEqual({ source_label: 'host-a', producer_revision: 'dispatcher-9' });
    expectRegistryError(() => createToolRegistry([], { control: { source_label: '', producer_revision: 'x' } }), /control/);
  });

  describe('refuses at start-up', () => {
    it('a duplicate name', () => {
      expectRegistryError(() => createToolRegistry([specs.getOrder, copy(specs.getOrder)]), /"get_order": registered twice/);
    });

    it('a missing or empty revision', () => {
      for (const revision of ['input_revision', 'output_revision', 'effect_revision', 'handler_revision', 'producer_revision', 'policy_revision'] as const) {
        const spec = copy(specs.getOrder);
        delete (spec.contract as Partial<typeof spec.contract>)[revision];
        expectRegistryError(() => createToolRegistry([spec]), new RegExp(`contract\\.${revision} is missing`));
        const empty = copy(specs.getOrder);
        empty.contract[revision] = '';
        expectRegistryError(() => createToolRegistry([empty]), new RegExp(`contract\\.${revision}`));
      }
    });

    it('a revision, source label or control identity holding a lone surrogate (it could never be sealed)', () => {
      const lone = `r-${String.fromCharCode(0xd800)}`;
      for (const revision of ['input_revision', 'producer_revision', 'policy_revision'] as const) {
        const spec = copy(specs.getOrder);
        spec.contract[revision] = lone;
        expectRegistryError(() => createToolRegistry([spec]), new RegExp(`contract\\.${revision} .*without lone surrogates`));
      }
      const label = copy(specs.getOrder);
      label.source_label = lone;
      expectRegistryError(() => createToolRegistry([label]), /source_label must be 1 to 64 characters without lone surrogates/);
      expectRegistryError(() => createToolRegistry([], { control: { source_label: 'host-a', producer_revision: lone } }), /control/);
      // A well-formed pair is text like any other.
      const emoji = copy(specs.getOrder);
      emoji.contract.policy_revision = 'policy-😀';
      expect(createToolRegistry([emoji]).get('get_order')?.contract.policy_revision).toBe('policy-😀');
    });

    it('a bad tool name, effect or source label, an unknown field, or the reserved name', () => {
      const badName = copy(specs.getOrder);
      badName.contract.tool_name = '1get order';
      expectRegistryError(() => createToolRegistry([badName]), /tool_name/);
      const badEffect = copy(specs.getOrder);
      (badEffect.contract as { effect: string }).effect = 'delete';
      expectRegistryError(() => createToolRegistry([badEffect]), /effect/);
      const badLabel = copy(specs.getOrder);
      badLabel.source_label = 'x'.repeat(65);
      expectRegistryError(() => createToolRegistry([badLabel]), /source_label/);
      const extra = { ...copy(specs.getOrder), output_schemas: {} } as unknown as ToolSpec;
      expectRegistryError(() => createToolRegistry([extra]), /unknown field "output_schemas"/);
      const reserved = copy(specs.getOrder);
      reserved.contract.tool_name = UNREGISTERED_TOOL_NAME;
      expectRegistryError(() => createToolRegistry([reserved]), /reserved/);
    });

    it('a schema strict Ajv rejects (unknown keyword, unknown format)', () => {
      const unknownKeyword = copy(specs.getOrder);
      (unknownKeyword.input_schema as Record<string, unknown>).minimumLength = 3;
      expectRegistryError(() => createToolRegistry([unknownKeyword]), /input_schema is rejected by the pinned Ajv/);
      const unknownFormat = withOutput((schema) => {
        (schema.properties as Record<string, Record<string, unknown>>).next_page = { type: 'string', maxLength: 8, format: 'hostname' };
      });
      expectRegistryError(() => createToolRegistry([unknownFormat]), /output_schema is rejected by the pinned Ajv/);
    });

    it('an input schema with an open object', () => {
      const spec = copy(specs.createRefundDraft);
      const lines = (spec.input_schema as { properties: { lines: { items: Record<string, unknown> } } }).properties.lines;
      delete lines.items.additionalProperties;
      expectRegistryError(() => createToolRegistry([spec]), /input_schema is not exact: input_schema\/properties\/lines\/items/);
    });

    const notExact: [string, (schema: Record<string, unknown>, spec: ToolSpec) => void, RegExp][] = [
      ['a nested object without additionalProperties: false', (_schema, spec) => delete hitSchema(spec).additionalProperties, /properties\/hits\/items: an object needs "additionalProperties": false/],
      ['additionalProperties: true at the root', (schema) => (schema.additionalProperties = true), /additionalProperties/],
      ['additionalProperties given as a schema', (schema) => (schema.additionalProperties = { type: 'string', maxLength: 3 }), /additionalProperties/],
      ['patternProperties', (schema) => (schema.patternProperties = { '^x': { type: 'string', maxLength: 1 } }), /"patternProperties" is not allowed/],
      ['anyOf', (_schema, spec) => (hitSchema(spec).anyOf = [{ required: ['title'] }]), /"anyOf" is not allowed/],
      ['$ref', (schema) => ((schema.properties as Record<string, unknown>).next_page = { $ref: '#/$defs/page' }), /declare one "type"/],
      ['a string without maxLength', (_schema, spec) => delete (hitSchema(spec).properties as Record<string, Record<string, unknown>>).snippet!.maxLength, /snippet: a string needs "maxLength"/],
      ['an array without maxItems', (schema) => delete (schema.properties as { hits: Record<string, unknown> }).hits.maxItems, /an array needs "maxItems"/],
      ['a union type', (schema) => ((schema.properties as Record<string, unknown>).next_page = { type: ['integer', 'string'] }), /one "type"/],
      ['a nullable root', (schema) => (schema.type = ['object', 'null']), /root must be/],
      ['a non-object root', (schema) => (schema.type = 'array'), /root must be/],
      ['a boolean subschema', (schema) => ((schema.properties as Record<string, unknown>).next_page = true), /boolean schemas/],
      ['a property name with a dot', (schema) => ((schema.properties as Record<string, unknown>)['next.page'] = { type: 'integer' }), /property name "next.page"/],
      ['a keyword of another type', (_schema, spec) => ((hitSchema(spec).properties as Record<string, Record<string, unknown>>).title!.maximum = 3), /"maximum" is not allowed/],
    ];
    for (const [label, mutate, message] of notExact) {
      it(`an output schema that is not exact: ${label}`, () => {
        const spec = copy(specs.kbSearch);
        mutate(spec.output_schema as Record<string, unknown>, spec);
        expectRegistryError(() => createToolRegistry([spec]), /output_schema is not exact/);
        expectRegistryError(() => createToolRegistry([spec]), message);
      });
    }

    it('an output schema declaring a sensitive or control key, including per-tool extras', () => {
      for (const key of ['token', 'Authorization', 'api_key', 'operation_id', 'result_sha256', 'session_id']) {
        const spec = withOutput((schema) => {
          (schema.properties as Record<string, unknown>)[key] = { type: 'string', maxLength: 8 };
        });
        expectRegistryError(() => createToolRegistry([spec]), /declares sensitive or control keys/);
      }
      const extra = copy(specs.kbSearch);
      extra.sensitive_keys = { extra: ['revision'] };
      expectRegistryError(() => createToolRegistry([extra]), /"revision"/);
    });

    it('the review: an output schema declaring the provider\'s message and tool-call vocabulary, unless the host lifts the name', () => {
      for (const key of ['instructions', 'system_prompt', 'developerMessage', 'tool_calls', 'functionCall', 'approval_required']) {
        const spec = withOutput((schema) => {
          (schema.properties as Record<string, unknown>)[key] = { type: 'string', maxLength: 8 };
        });
        expectRegistryError(() => createToolRegistry([spec]), /declares sensitive or control keys/);
        expect(() => createToolRegistry([{ ...spec, sensitive_keys: { allow: [key] } }]), key).not.toThrow();
      }
    });

    it('malformed sensitive_keys: not lists of 1 to 64 characters, or unknown members', () => {
      for (const value of [{ allow: [1] }, { allow: 'response_id' }, { extra: [''] }, { allow: ['x'.repeat(65)] }, { lift: ['response_id'] }, []]) {
        const spec = copy(specs.kbSearch);
        (spec as { sensitive_keys?: unknown }).sensitive_keys = value;
        expectRegistryError(() => createToolRegistry([spec]), /sensitive_keys/);
      }
    });

    it('a resource_revision pattern that is not anchored or not a regular expression', () => {
      for (const pattern of ['kb-index-r[0-9]+', '^kb-index', 'kb$', '^kb\\$', '^(kb$']) {
        const spec = copy(specs.kbSearch);
        spec.resource_revision = { pattern };
        expectRegistryError(() => createToolRegistry([spec]), /resource_revision\.pattern/);
      }
    });

    it('a backtracking resource_revision pattern is matched in linear time, against the whole value', () => {
      const spec = copy(specs.kbSearch);
      spec.resource_revision = { pattern: '^(a+)+$' };
      const tool = createToolRegistry([spec]).get(spec.contract.tool_name);
      // A backtracking engine needs about 2^20,000 steps here: a regression is a test timeout.
      expect(tool?.resourceRevision.test(`${'a'.repeat(20_000)}!`)).toBe(false);
      expect(tool?.resourceRevision.test('a'.repeat(20_000))).toBe(true);
      expect(tool?.resourceRevision.test('b aaa')).toBe(false);
    });

    it('a resource_revision pattern the linear-time engine refuses', () => {
      const refused: [string, RegExp][] = [
        ['^kb-(r)\\1$', /backreference/],
        ['^kb-(?<r>r)\\k<r>$', /named backreference/],
        ['^(?=kb)kb-r[0-9]+$', /lookahead/],
        ['^kb(?<!x)-r[0-9]+$', /lookbehind/],
        ['^\\bkb-r[0-9]+$', /word boundaries/],
        ['^\\p{L}+$', /Unicode property/],
        ['^(?:[a-z]{1,100}){100}$', /automaton states/],
      ];
      for (const [pattern, detail] of refused) {
        const spec = copy(specs.kbSearch);
        spec.resource_revision = { pattern };
        expectRegistryError(() => createToolRegistry([spec]), /resource_revision\.pattern is not supported/);
        expectRegistryError(() => createToolRegistry([spec]), detail);
      }
    });

    it('a link field without a link policy, or a malformed policy', () => {
      const missing = copy(specs.kbSearch);
      delete missing.links;
      expectRegistryError(() => createToolRegistry([missing]), /\/hits\/\*\/source hold links/);
      for (const links of [
        { schemes: [], hosts: ['kb.example.com'] },
        { schemes: ['https:'], hosts: ['kb.example.com'] },
        { schemes: ['https'], hosts: ['*.example.com'] },
        { schemes: ['https'], hosts: ['KB.example.com'] },
        { schemes: ['https'], hosts: ['kb.example.com'], pointers: ['hits/0'] },
      ]) {
        const spec = copy(specs.kbSearch);
        spec.links = links;
        expectRegistryError(() => createToolRegistry([spec]), /links/);
      }
    });

    it('a media-type field without allowed media types', () => {
      const spec = withOutput((schema) => {
        (schema.properties as Record<string, unknown>).media_type = { type: 'string', maxLength: 64 };
      });
      expectRegistryError(() => createToolRegistry([spec]), /\/media_type hold media types/);
      spec.media_types = ['Text/Plain'];
      expectRegistryError(() => createToolRegistry([spec]), /media_types/);
      spec.media_types = ['text/plain', 'application/pdf'];
      expect(createToolRegistry([spec]).get('kb_search')?.media.pointers).toEqual(['/media_type']);
    });

    it('a field named for a media type or a link in another spelling, without a policy (review: naming sidestepped both)', () => {
      for (const [name, schema, message, pointers] of [
        ['contentType', { type: 'string', maxLength: 64 }, /\/contentType hold media types/, ['/contentType']],
        ['MIME_TYPE', { type: 'string', maxLength: 64 }, /\/MIME_TYPE hold media types/, ['/MIME_TYPE']],
        ['file_media_types', { type: 'array', maxItems: 4, items: { type: 'string', maxLength: 64 } }, /\/file_media_types\/\* hold media types/, ['/file_media_types/*']],
      ] as const) {
        const spec = withOutput((output) => {
          (output.properties as Record<string, unknown>)[name] = schema;
        });
        expectRegistryError(() => createToolRegistry([spec]), message);
        spec.media_types = ['text/plain'];
        expect(createToolRegistry([spec]).get('kb_search')?.media.pointers).toEqual(pointers);
      }
      for (const [name, schema, pointer] of [
        ['url', { type: 'string', maxLength: 256 }, '/url'],
        ['sourceUrl', { type: ['string', 'null'], maxLength: 256 }, '/sourceUrl'],
        ['download_link', { type: 'string', maxLength: 256 }, '/download_link'],
        ['HREF', { type: 'string', maxLength: 256 }, '/HREF'],
        ['image_urls', { type: 'array', maxItems: 4, items: { type: 'string', maxLength: 256 } }, '/image_urls/*'],
      ] as const) {
        const spec = withOutput((output) => {
          (output.properties as Record<string, unknown>)[name] = schema;
        });
        expect(createToolRegistry([spec]).get('kb_search')?.links.pointers).toContain(pointer);
        delete spec.links;
        expectRegistryError(() => createToolRegistry([spec]), new RegExp(`${pointer.replace('*', '\\*')} hold links`));
      }
      // Names that merely contain the words, and fields that hold no strings, stay plain fields.
      for (const [name, schema] of [
        ['url_count', { type: 'integer', minimum: 0, maximum: 10 }],
        ['link', { type: 'boolean' }],
        ['curly_brace', { type: 'string', maxLength: 8 }],
        ['media_type_known', { type: 'boolean' }],
      ] as const) {
        const spec = withOutput((output) => {
          (output.properties as Record<string, unknown>)[name] = schema;
        });
        delete spec.links;
        (spec.output_schema as { properties: { hits: { items: { properties: Record<string, unknown> } } } }).properties.hits.items.properties['source'] = { type: 'string', maxLength: 256 };
        expect(createToolRegistry([spec]).get('kb_search')?.links.pointers).toEqual([]);
        expect(createToolRegistry([spec]).get('kb_search')?.media.pointers).toEqual([]);
      }
    });

    it('a field whose head word names a link or a media type, in the spellings the review found missed, without a policy (review: url2, src, mime, links{self})', () => {
      const STRING = { type: 'string', maxLength: 256 };
      const strings = (items: object) => ({ type: 'array', maxItems: 4, items });
      const exact = (properties: Record<string, unknown>) => ({ type: 'object', additionalProperties: false, properties });
      for (const [name, schema, pointers] of [
        ['url2', STRING, ['/url2']],
        ['URL_2', STRING, ['/URL_2']],
        ['imageUrl1', STRING, ['/imageUrl1']],
        ['url_v2', STRING, ['/url_v2']],
        ['src', STRING, ['/src']],
        ['image', exact({ src: STRING, alt: STRING }), ['/image/src']],
        ['website', STRING, ['/website']],
        ['links', exact({ self: STRING, next: STRING }), ['/links/self', '/links/next']],
        ['urls', strings(strings(STRING)), ['/urls/*/*']],
      ] as const) {
        const spec = withOutput((output) => {
          (output.properties as Record<string, unknown>)[name] = schema;
        });
        expect(createToolRegistry([spec]).get('kb_search')?.links.pointers).toEqual(['/hits/*/source', ...pointers]);
        delete spec.links;
        expectRegistryError(() => createToolRegistry([spec]), `output fields /hits/*/source, ${pointers.join(', ')} hold links: declare links.schemes and links.hosts`);
      }
      for (const [name, pointer] of [
        ['contentType2', '/contentType2'],
        ['mime', '/mime'],
      ] as const) {
        const spec = withOutput((output) => {
          (output.properties as Record<string, unknown>)[name] = { type: 'string', maxLength: 64 };
        });
        expectRegistryError(() => createToolRegistry([spec]), `output fields ${pointer} hold media types: declare media_types`);
        spec.media_types = ['text/plain'];
        expect(createToolRegistry([spec]).get('kb_search')?.media.pointers).toEqual([pointer]);
      }
    });

    it('a string field whose name only contains the letters of a link, or whose head word is another word, needs no policy (review: curl and cufflink were links with no way out)', () => {
      for (const name of ['curl', 'sample_curl', 'cufflink', 'link_text', 'link_count', 'url_label', 'url_list_label']) {
        const spec = withOutput((output) => {
          (output.properties as Record<string, unknown>)[name] = { type: 'string', maxLength: 256 };
        });
        expect(createToolRegistry([spec]).get('kb_search')?.links.pointers, name).toEqual(['/hits/*/source']);
        // Without the fixture's `format: "uri"` source, the tool has no link field and needs no policy.
        delete spec.links;
        (hitSchema(spec).properties as Record<string, unknown>)['source'] = { type: 'string', maxLength: 256 };
        expect(createToolRegistry([spec]).get('kb_search')?.links.pointers, name).toEqual([]);
      }
    });

    it('an echo naming a field that is not declared, or lies inside an array', () => {
      const unknownOutput = copy(specs.getOrder);
      unknownOutput.echo = { '/order_reference': '/order_id' };
      expectRegistryError(() => createToolRegistry([unknownOutput]), /echo output pointer "\/order_reference"/);
      const unknownInput = copy(specs.getOrder);
      unknownInput.echo = { '/order_ref': '/id' };
      expectRegistryError(() => createToolRegistry([unknownInput]), /echo input pointer "\/id"/);
      const inArray = copy(specs.getOrder);
      inArray.echo = { '/lines/0/line_id': '/order_id' };
      expectRegistryError(() => createToolRegistry([inArray]), /echo output pointer/);
    });

    it('limits that are not positive integers within the ceilings, or unknown', () => {
      for (const limits of [{ maxBytes: 0 }, { maxDepth: 1.5 }, { maxBytes: 1e12 }, { maxItems: 3 }]) {
        const spec = copy(specs.getOrder);
        spec.limits = limits as Partial<OutputLimits>;
        expectRegistryError(() => createToolRegistry([spec]), /limits/);
      }
    });

    it('a spec that is not an object, and specs that are not an array', () => {
      expectRegistryError(() => createToolRegistry([null as unknown as ToolSpec]), /must be an object/);
      expectRegistryError(() => createToolRegistry({} as unknown as ToolSpec[]), /array/);
    });
  });
});

describe('createToolRegistry: options and specs are checked as data, with the tool and field named', () => {
  /** The RegistryError `build` throws; fails the test when it throws nothing or anything else. */
  function registryError(build: () => unknown): RegistryError {
    let thrown: unknown;
    try {
      build();
    } catch (error) {
      thrown = error;
    }
    expect(RegistryError.isInstance(thrown), String(thrown)).toBe(true);
    return thrown as RegistryError;
  }

  it('refuses options that are not an object, or hold an unknown key (review: null read as "control" of null)', () => {
    for (const options of [null, 'control', 7, []]) {
      const error = registryError(() => createToolRegistry([copy(specs.getOrder)], options as never));
      expect(error.message).toBe('options must be an object ({ control? }) or left out');
      expect(error.toolName).toBeNull();
    }
    const misspelt = registryError(() => createToolRegistry([], { contol: DEFAULT_CONTROL_PROVENANCE } as never));
    expect(misspelt.message).toBe('options has unknown field "contol"');
    // Left out, `undefined` or an empty object: the default control provenance.
    for (const options of [undefined, {}]) expect(createToolRegistry([], options).control).toEqual(DEFAULT_CONTROL_PROVENANCE);
  });

  it('names a handler kept beside the spec as the unknown field it is, with the tool name', () => {
    // Review: `{ ...spec, handler: () => 1 }` threw `DOMException: () => 1 could not be cloned.`
    const error = registryError(() => createToolRegistry([{ ...copy(specs.getOrder), handler: () => 1 } as ToolSpec]));
    expect(error.message).toBe('tool "get_order": spec has unknown field "handler"');
    expect(error.toolName).toBe('get_order');
  });

  it('refuses a member that is not JSON data, naming the tool and the path of the value', () => {
    class ZodLikeSchema {
      readonly _def = { typeName: 'ZodObject' };
      parse(value: unknown): unknown {
        return value;
      }
    }
    const cyclic = copy(specs.getOrder);
    (cyclic.output_schema as Record<string, unknown>)['self'] = cyclic.output_schema;
    const cases: [string, (spec: Record<string, unknown>) => void, string][] = [
      ['a schema library object as input_schema', (spec) => (spec['input_schema'] = new ZodLikeSchema()), 'input_schema must be JSON data, not a class instance'],
      [
        'a function inside input_schema',
        (spec) => (((spec['input_schema'] as { properties: Record<string, Record<string, unknown>> }).properties['order_id'] ?? {})['refine'] = () => true),
        'input_schema.properties.order_id.refine must be JSON data, not a function',
      ],
      ['a function under a pointer key of echo', (spec) => (spec['echo'] = { '/order_ref': () => '/order_id' }), 'echo["/order_ref"] must be JSON data, not a function'],
      ['a BigInt limit', (spec) => (spec['limits'] = { maxBytes: 10n }), 'limits.maxBytes must be JSON data, not a BigInt'],
      ['a NaN limit', (spec) => (spec['limits'] = { maxDepth: Number.NaN }), 'limits.maxDepth must be JSON data, not NaN'],
      ['a Date in a list', (spec) => (spec['media_types'] = ['text/plain', new Date(0)]), 'media_types[1] must be JSON data, not a class instance'],
      ['a symbol', (spec) => (spec['source_label'] = Symbol('orders')), 'source_label must be JSON data, not a symbol'],
    ];
    for (const [label, mutate, message] of cases) {
      const spec = copy(specs.getOrder) as unknown as Record<string, unknown>;
      mutate(spec);
      const error = registryError(() => createToolRegistry([spec as unknown as ToolSpec]));
      expect(error.message, label).toContain(`tool "get_order": ${message}`);
      expect(error.toolName, label).toBe('get_order');
    }
    expect(registryError(() => createToolRegistry([cyclic])).message).toBe('tool "get_order": output_schema.self must be JSON data, not a cycle');
  });

  // Review 4 §10: only this realm's Object.prototype (or null) counted as plain, so a plain-JSON
  // spec parsed in another realm (a vm context) was refused as a class instance, though
  // structuredClone, the copy used before, accepted it. Arrays from another realm were accepted
  // (Array.isArray works across realms), so the two disagreed.
  it('accepts a plain-JSON spec made in another realm, and still refuses class instances and built-ins of any realm', () => {
    const text = JSON.stringify(specs.getOrder);
    const foreign = runInNewContext(`JSON.parse(${JSON.stringify(text)})`) as ToolSpec;
    expect(Object.getPrototypeOf(foreign)).not.toBe(Object.prototype);
    const registry = createToolRegistry([foreign]);
    expect(registry.toolNames).toEqual(['get_order']);
    const tool = registry.get('get_order');
    expect(tool?.contract).toEqual(specs.getOrder.contract);
    expect(Object.getPrototypeOf(tool?.contract)).toBe(Object.prototype);
    // The same tool as one registered from this realm's copy of the spec.
    expect(JSON.stringify(tool)).toBe(JSON.stringify(createToolRegistry([copy(specs.getOrder)]).get('get_order')));

    const cases: [string, string, string][] = [
      ['another realm\'s Date', 'new Date(0)', 'a class instance'],
      ['another realm\'s Map', 'new Map()', 'a class instance'],
      ['another realm\'s RegExp', '/x/', 'a class instance'],
      ['another realm\'s class instance', '(class Schema { constructor() { this.type = "object"; } }, new (class Schema { constructor() { this.type = "object"; } })())', 'a class instance'],
    ];
    for (const [label, source, problem] of cases) {
      const spec = copy(specs.getOrder) as unknown as Record<string, unknown>;
      spec['input_schema'] = runInNewContext(source) as unknown;
      const error = registryError(() => createToolRegistry([spec as unknown as ToolSpec]));
      expect(error.message, label).toContain(`tool "get_order": input_schema must be JSON data, not ${problem}`);
    }
    // An object whose prototype holds a built-in tag is no plain object either.
    const tagged = Object.assign(Object.create(Object.assign(Object.create(null) as object, { [Symbol.toStringTag]: 'Schema' })) as object, { type: 'object' });
    const spec = copy(specs.getOrder) as unknown as Record<string, unknown>;
    spec['input_schema'] = tagged;
    expect(registryError(() => createToolRegistry([spec as unknown as ToolSpec])).message).toContain('input_schema must be JSON data, not a class instance');
  });

  // Review 4 §6: the guard checked the names of every limits object on every call; the registry's
  // guard limits are now the guard's own resolved objects, which it takes back with no check.
  it('makes its guard limits with the guard, so each sealed call takes them back unchecked', () => {
    const registry = createToolRegistry([copy(specs.getOrder)]);
    const tool = registry.get('get_order');
    for (const limits of [tool?.handlerOutputLimits, tool?.dataLimits, registry.packageLimits]) {
      expect(Object.isFrozen(limits)).toBe(true);
      expect(resolveJsonLimits(limits)).toBe(limits);
    }
  });

  it('names the path within the contract too, before the tool name is known', () => {
    const spec = copy(specs.getOrder);
    (spec.contract as unknown as Record<string, unknown>)['handler_revision'] = () => 'h-1';
    const error = registryError(() => createToolRegistry([spec]));
    expect(error.message).toBe('contract.handler_revision must be JSON data, not a function');
    expect(error.toolName).toBeNull();
  });

  it('still reads a member left undefined as left out, and keeps a private frozen copy', () => {
    const spec = { ...copy(specs.getOrder), links: undefined, sensitive_keys: undefined } as unknown as ToolSpec;
    const tool = createToolRegistry([spec]).get('get_order');
    expect(tool?.links.pointers).toEqual([]);
    (spec.contract as { handler_revision: string }).handler_revision = 'changed';
    expect(tool?.contract.handler_revision).toBe(specs.getOrder.contract.handler_revision);
    expect(Object.isFrozen(tool?.contract)).toBe(true);
  });
});
