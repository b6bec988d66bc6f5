// Internal to @toolseal/guard: `$ref` resolution as Ajv does it inside one contract (each schema has
// its own Ajv instance: a `$ref` resolves only to the schema itself or to a resource it embeds).
import type { UriResolver } from 'ajv/dist/types/index.js';
import ajvUri from 'ajv/dist/runtime/uri.js';
import { subschemasOf } from './subschemas.js';

// Ajv's own URI library (fast-uri, which the pinned Ajv resolves every `$id` and `$ref` with), so
// that a `$ref` names here what it names in the compiled validator: WHATWG `new URL` keeps `%75`
// as it is where fast-uri normalizes it to `u`, and a cycle through such a spelling went unseen.
// CommonJS: under NodeNext its default import is `module.exports`, whose `default` is the library.
const uri: UriResolver = (ajvUri as unknown as { default?: UriResolver }).default ?? (ajvUri as unknown as UriResolver);

/**
 * The base URI of a schema compiled without `$id` (see `compileSchema`): a reserved `.invalid`
 * host, never fetched (the pinned Ajv loads nothing), against which a relative `$ref` to another
 * document fails with Ajv's usual "can't resolve reference".
 */
export const CONTRACT_BASE_ID = 'https://toolseal.invalid/contract';

/** How deep subschemas may nest (`properties`, `items`, `not`, `allOf`, `$ref`...) for `createDeclaredFields`. */
export const MAX_SCHEMA_NESTING = 512;

const INDEX = /^(?:0|[1-9][0-9]{0,5})$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `reference` resolved against `base` (RFC 3986) as the pinned Ajv resolves it, or `undefined` when it cannot be. */
function resolveUri(reference: string, base: string): string | undefined {
  try {
    const resolved = uri.resolve(base, reference);
    return typeof resolved === 'string' ? resolved : undefined;
  } catch {
    return undefined;
  }
}

/** The subschema the JSON Pointer `pointer` (RFC 6901, URI-encoded) names in `resource`, or `undefined`. */
function resolvePointer(resource: unknown, pointer: string): unknown {
  if (pointer === '') return resource;
  if (!pointer.startsWith('/')) return undefined; // An `$anchor` name: not followed.
  let current: unknown = resource;
  for (const raw of pointer.slice(1).split('/')) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    } catch {
      return undefined;
    }
    if (Array.isArray(current) && INDEX.test(segment)) current = current[Number(segment)];
    else if (isRecord(current) && Object.hasOwn(current, segment)) current = current[segment];
    else return undefined;
  }
  return current;
}

/** The base URI of `node`'s resource: its own `$id` resolved against `base` (without fragment), or `base`. */
function resourceBase(node: Readonly<Record<string, unknown>>, base: string): string {
  const uri = typeof node.$id === 'string' ? resolveUri(node.$id, base) : undefined;
  return uri === undefined ? base : (uri.split('#')[0] as string);
}

/**
 * Every schema resource of `schema` by its absolute URI: the root under its `$id` (or the default
 * base), and each subschema with an `$id`, resolved against the resource around it.
 */
function collectResources(schema: unknown, rootBase: string): Map<string, unknown> {
  const resources = new Map<string, unknown>([[rootBase, schema]]);
  const seen = new Set<object>();
  const visit = (node: unknown, base: string, nesting: number): void => {
    if (!isRecord(node) || seen.has(node) || nesting > MAX_SCHEMA_NESTING) return;
    seen.add(node);
    const here = nesting === 0 ? base : resourceBase(node, base);
    if (here !== base && !resources.has(here)) resources.set(here, node);
    // Subschemas only: an `$id` inside a `const`, `enum`, `default` or `examples` value names nothing.
    for (const subschema of subschemasOf(node)) visit(subschema, here, nesting + 1);
  };
  visit(schema, rootBase, 0);
  return resources;
}

/** Resolves `$ref`s inside one schema (see `createRefResolver`). */
export interface RefResolver {
  /** The root's base URI: its `$id`, or `CONTRACT_BASE_ID`. */
  readonly rootBase: string;
  /**
   * The subschema `ref` names, resolved against `base` (a local pointer, or a resource by `$id`),
   * with the base URI of the resource holding it; `undefined` when it names nothing in the schema
   * (an `$anchor` name, or another document).
   */
  resolveRef(ref: string, base: string): { readonly node: unknown; readonly base: string } | undefined;
  /** The base URI of `node`'s resource: its own `$id` resolved against `base` (without fragment), or `base`. */
  resourceBase(node: Readonly<Record<string, unknown>>, base: string): string;
}

/** A resolver for the `$ref`s of `schema`, as `compileSchema` compiles it (its resources collected once). */
export function createRefResolver(schema: unknown): RefResolver {
  const rootBase = isRecord(schema) ? resourceBase(schema, CONTRACT_BASE_ID) : CONTRACT_BASE_ID;
  const resources = collectResources(schema, rootBase);
  const resolveRef = (ref: string, base: string): { readonly node: unknown; readonly base: string } | undefined => {
    const target = resolveUri(ref, base);
    if (target === undefined) return undefined;
    const hash = target.indexOf('#');
    const uri = hash === -1 ? target : target.slice(0, hash);
    const resource = resources.get(uri);
    if (resource === undefined) return undefined;
    const node = resolvePointer(resource, hash === -1 ? '' : target.slice(hash + 1));
    return node === undefined ? undefined : { node, base: uri };
  };
  return { rootBase, resolveRef, resourceBase };
}
