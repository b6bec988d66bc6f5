// Internal to @toolseal/guard: the start-up check that no `$ref` cycle of a contract can recurse
// without consuming input, which `compileSchema` runs before compiling.
import { createRefResolver, MAX_SCHEMA_NESTING } from './create-ref-resolver.js';

/**
 * Keywords whose subschemas apply to the instance itself (the same instance location): a cycle
 * through only these and `$ref` never gets closer to an end.
 */
const SAME_PLACE_SINGLE = ['not', 'if', 'then', 'else'];
const SAME_PLACE_LISTS = ['allOf', 'anyOf', 'oneOf'];
const SAME_PLACE_MAPS = ['dependentSchemas', 'dependencies'];
/** Keywords whose subschemas apply to a part of the instance (a member, an item, a key): progress. */
const DEEPER_SINGLE = ['items', 'contains', 'additionalProperties', 'unevaluatedProperties', 'unevaluatedItems', 'additionalItems', 'propertyNames'];
const DEEPER_LISTS = ['prefixItems'];
const DEEPER_MAPS = ['properties', 'patternProperties'];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A subschema reached from the root, with the base URI its `$ref`s resolve against and where it sits. */
interface Reached {
  readonly node: Record<string, unknown>;
  readonly base: string;
  readonly where: string;
}

/**
 * Where a cycle of same-place applicators closes in `schema` (a `$ref`, or a chain of them with
 * `allOf`/`anyOf`/`oneOf`/`not`/`if`/`then`/`else`/`dependentSchemas` between, that leads back to
 * a subschema already being applied to the same value without passing through `properties`,
 * `items`, `prefixItems`, `additionalProperties`, `contains`... first), as a JSON Pointer from
 * the root along the path that found it; `null` when there is none. `tooDeep` instead when
 * same-place subschemas chain more than `MAX_SCHEMA_NESTING` deep (no contract needs that).
 *
 * Ajv compiles such a cycle into functions that call each other on the same value: for the inputs
 * that reach it (which a few probe values at start-up need not be) validation recurses until the
 * stack runs out, and the RangeError replaces the answer. A cycle through a keyword that moves
 * into the instance ends, because the instance is finite (`{ properties: { child: { $ref: '#' } } }`).
 * `$ref`s are resolved as `createDeclaredFields` resolves them; when there is no cycle, the first
 * one that names nothing in the schema is reported (`unresolved`, the reference): Ajv refuses most
 * of those anyway, and one it resolves is one it resolves differently (through the keyword
 * `compileSchema` adds to count work, say).
 */
export function findStalledRefCycle(schema: unknown): { readonly where: string; readonly tooDeep: boolean; readonly unresolved?: string } | null {
  if (!isRecord(schema)) return null;
  const { rootBase, resolveRef, resourceBase } = createRefResolver(schema);

  // The first `$ref` that names nothing the resolver finds: Ajv refuses most such (another document,
  // a missing definition), and one it resolves anyway is resolved differently from this check.
  let unresolved: { readonly where: string; readonly tooDeep: boolean; readonly unresolved: string } | null = null;
  const enter = (node: unknown, parentBase: string, where: string, isRoot = false): Reached | null =>
    isRecord(node) ? { node, base: isRoot ? parentBase : resourceBase(node, parentBase), where } : null;

  /** The subschemas applied to the same value as `reached`, and those applied to a part of it. */
  const next = (reached: Reached): { same: Reached[]; deeper: Reached[] } => {
    const { node, base, where } = reached;
    const same: Reached[] = [];
    const deeper: Reached[] = [];
    const add = (into: Reached[], child: unknown, at: string): void => {
      const entered = enter(child, base, `${where}/${at}`);
      if (entered !== null) into.push(entered);
    };
    for (const keyword of SAME_PLACE_SINGLE) if (Object.hasOwn(node, keyword)) add(same, node[keyword], keyword);
    for (const keyword of DEEPER_SINGLE) if (Object.hasOwn(node, keyword)) add(deeper, node[keyword], keyword);
    for (const [keywords, into] of [
      [SAME_PLACE_LISTS, same],
      [DEEPER_LISTS, deeper],
    ] as const) {
      for (const keyword of keywords) {
        const list = node[keyword];
        if (Object.hasOwn(node, keyword) && Array.isArray(list)) list.forEach((child, index) => add(into, child, `${keyword}/${index}`));
      }
    }
    for (const [keywords, into] of [
      [SAME_PLACE_MAPS, same],
      [DEEPER_MAPS, deeper],
    ] as const) {
      for (const keyword of keywords) {
        const map = node[keyword];
        if (!Object.hasOwn(node, keyword) || !isRecord(map)) continue;
        for (const name of Object.keys(map)) add(into, map[name], `${keyword}/${escapePointer(name)}`);
      }
    }
    if (Object.hasOwn(node, '$ref') && typeof node.$ref === 'string') {
      const target = resolveRef(node.$ref, base);
      if (target === undefined) unresolved ??= { where: `${where}/$ref`, tooDeep: false, unresolved: node.$ref };
      const entered = target === undefined ? null : enter(target.node, target.base, `${where}/$ref`);
      if (entered !== null) same.push(entered);
    }
    return { same, deeper };
  };

  // Every subschema an instance can reach, once each (by object: a `$ref` and the subschema it
  // names are the same object), walked without recursion.
  const reachable: Reached[] = [];
  const seen = new Set<object>();
  const root = enter(schema, rootBase, '', true)!;
  const pending: Reached[] = [root];
  seen.add(schema);
  for (let reached = pending.pop(); reached !== undefined; reached = pending.pop()) {
    reachable.push(reached);
    const { same, deeper } = next(reached);
    for (const child of [...same, ...deeper]) {
      if (!seen.has(child.node)) {
        seen.add(child.node);
        pending.push(child);
      }
    }
  }

  // A depth-first search over same-place edges only: meeting a subschema still on the path is a
  // cycle. Iterative, so a long chain of `$ref`s cannot overflow the stack here.
  const ON_PATH = 1;
  const DONE = 2;
  const state = new Map<object, number>();
  for (const start of reachable) {
    if (state.has(start.node)) continue;
    const path: { same: Reached[]; index: number; node: object }[] = [{ same: next(start).same, index: 0, node: start.node }];
    state.set(start.node, ON_PATH);
    while (path.length > 0) {
      const top = path[path.length - 1]!;
      const child = top.same[top.index++];
      if (child === undefined) {
        state.set(top.node, DONE);
        path.pop();
        continue;
      }
      const seenState = state.get(child.node);
      if (seenState === ON_PATH) return { where: child.where, tooDeep: false };
      if (seenState === DONE) continue;
      // Far deeper than any contract: refused (`tooDeep`), not walked further.
      if (path.length > MAX_SCHEMA_NESTING) return { where: child.where, tooDeep: true };
      state.set(child.node, ON_PATH);
      path.push({ same: next(child).same, index: 0, node: child.node });
    }
  }
  return unresolved;
}

/** A property name as a JSON Pointer segment (RFC 6901). */
function escapePointer(name: string): string {
  return name.replaceAll('~', '~0').replaceAll('/', '~1');
}
