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

// Ajv's `normalizeId`: a trailing `#` or `#/` names the resource itself (`{ $ref: '#/' }` is the root).
const TRAILING_HASH = /#\/?$/;

/** `reference` resolved against `base` (RFC 3986) as the pinned Ajv resolves it, or `undefined` when it cannot be. */
function resolveUri(reference: string, base: string): string | undefined {
  try {
    const resolved = uri.resolve(base, reference.replace(TRAILING_HASH, ''));
    return typeof resolved === 'string' ? resolved : undefined;
  } catch {
    return undefined;
  }
}

// Ajv's `PREVENT_SCOPE_CHANGE`: a step by one of these names never takes the `$id` it reaches as a base.
const PREVENT_SCOPE_CHANGE = new Set(['properties', 'patternProperties', 'enum', 'dependencies', 'definitions']);

/**
 * The subschema the JSON Pointer `pointer` (RFC 6901, URI-encoded) names in `resource`, with the
 * base its own `$id` resolves against, or `undefined`. As Ajv's `getJsonPointer`, each step into a
 * subschema with an `$id` on the way changes that base.
 */
function resolvePointer(resource: Resource, pointer: string): { readonly node: unknown; readonly base: string } | undefined {
  // The base the node's own `$id` is resolved against by whoever enters it: for the resource
  // itself, the base around it (its `$id` gave the resource's URI).
  if (pointer === '') return { node: resource.node, base: resource.outerBase };
  if (!pointer.startsWith('/')) return undefined; // An `$anchor` name: not followed.
  let current: unknown = resource.node;
  let currentBase = resource.uri;
  let parentBase = resource.uri;
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
    parentBase = currentBase;
    if (!PREVENT_SCOPE_CHANGE.has(segment) && isRecord(current) && typeof current.$id === 'string') {
      currentBase = resolveUri(current.$id, currentBase) ?? currentBase;
    }
  }
  return { node: current, base: parentBase };
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
/** A schema resource: its root node, its URI, and the base URI around it (its `$id` is resolved against that). */
interface Resource {
  readonly node: unknown;
  readonly uri: string;
  readonly outerBase: string;
}

function collectResources(schema: unknown, rootBase: string): Map<string, Resource> {
  const resources = new Map<string, Resource>([[rootBase, { node: schema, uri: rootBase, outerBase: CONTRACT_BASE_ID }]]);
  const seen = new Set<object>();
  const visit = (node: unknown, base: string, nesting: number): void => {
    if (!isRecord(node) || seen.has(node) || nesting > MAX_SCHEMA_NESTING) return;
    seen.add(node);
    const here = nesting === 0 ? base : resourceBase(node, base);
    if (here !== base && !resources.has(here)) resources.set(here, { node, uri: here, outerBase: base });
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
    return resolvePointer(resource, hash === -1 ? '' : target.slice(hash + 1));
  };
  return { rootBase, resolveRef, resourceBase };
}
