/**
 * Start-up inspection of a tool's output schema. An output schema must be exact at every level so
 * that nothing a handler adds can pass: this walk proves it before the first call, and collects the
 * places the seal path must check further (links, media types, echoed fields). The input schema's
 * closedness proof is the guard's `inspectInputSchema`, which shares its keyword tables, depth bound
 * and `uniqueItems` bound with this walk.
 */
import {
  ANY_TYPE_KEYWORDS,
  isForbiddenKey,
  KEYWORDS_BY_TYPE,
  MAX_INSPECTED_SCHEMA_DEPTH,
  uniqueItemsProblem,
} from '@toolseal/guard';

/** The guard's bound on `uniqueItems` arrays of non-scalar items, which both inspections enforce. */
export { MAX_UNIQUE_ITEMS } from '@toolseal/guard';

/** What the walk found in one output schema. */
export interface SchemaInspection {
  /** Why the schema is not acceptable; empty when it is. */
  problems: string[];
  /**
   * Pointer templates (`*` = any array index), each once, of string fields with `format: "uri"`, of
   * string fields (or arrays, or arrays of arrays, of strings) whose name's head word is a link word
   * (`isLinkFieldName`), and of the string members of an object whose head word is a plural link
   * word (`LINK_COLLECTION_WORDS`).
   */
  uriPointers: string[];
  /** Pointer templates of string fields (or arrays of strings) named for a media type (`isMediaFieldName`). */
  mediaPointers: string[];
  /** Pointers of every declared property reached through objects only (no arrays): echo targets. */
  scalarPaths: Set<string>;
  /** Every property name the schema declares, at any depth. */
  propertyNames: Set<string>;
}

const TYPES = new Set(['object', 'array', 'string', 'integer', 'number', 'boolean', 'null']);
const ROOT_ONLY = ['$schema', '$id'];
const DRAFT_2020_12 = 'https://json-schema.org/draft/2020-12/schema';
/** Property names that stay contract-safe in JSON Pointers (see `ErrorReason.field`). */
const PROPERTY_NAME = /^[A-Za-z0-9_]{1,64}$/;
/**
 * Output fields that hold a media type or a link, found by name so that their values are held to
 * the tool's `media_types` and `links` policies (spec 000: "limit MIME ... URLs"): a limit that hung
 * on one spelling (`media_type`, or `format: "uri"` alone) was sidestepped by naming the field
 * `contentType`, `url2` or `src`. A name is split into words (`fieldNameWords`) and only its HEAD
 * word, the last one, decides (for media types, also the last two joined): `download_link`,
 * `imageUrl1`, `URL_2`, `url_v2`, `contentType2` and `MIME_TYPE` are found; `link_text`,
 * `url_count`, `urlList` (head `list`) and `curl` or `cufflink` (one word each, not in the lists)
 * are not. Such a field is a string, a nullable string, or an array (of arrays...) of them.
 */
const LINK_WORDS = new Set([
  'url',
  'urls',
  'uri',
  'uris',
  'href',
  'hrefs',
  'link',
  'links',
  'src',
  'srcs',
  'website',
  'websites',
  'homepage',
  'homepages',
  'permalink',
  'permalinks',
  'hyperlink',
  'hyperlinks',
]);
/**
 * Head words of an object whose every string member (or array of strings) is a link, as a JSON:API
 * or HAL `links: { self, next }` object: the plural link words.
 */
const LINK_COLLECTION_WORDS = new Set(['urls', 'uris', 'hrefs', 'links', 'srcs', 'websites', 'homepages', 'permalinks', 'hyperlinks']);
/** Media-type head words, or last two words joined (`content_type`, `mediaType`, `MIME_TYPE`). */
const MEDIA_WORDS = new Set(['mime', 'mimes', 'mimetype', 'mimetypes', 'mediatype', 'mediatypes', 'contenttype', 'contenttypes']);
/**
 * The words of an output property name, lower-cased: split at underscores, at a lower-case letter
 * followed by an upper-case one (`imageUrl`), before the last capital of a run of capitals followed
 * by a lower-case letter (`URLList` is `url`, `list`) and between letters and digits; words of
 * digits only (`url2`, `URL_2`) and version words (`v2`, `V10` after a word, as in `url_v2` or
 * `urlV2`) are dropped. Property names are `[A-Za-z0-9_]`.
 */
export function fieldNameWords(name: string): string[] {
  const words: string[] = [];
  for (const part of name.split('_')) {
    // A run of capitals is one word (`imageURL`), with a plural `s` (`URLs`), and ends before a
    // capitalized word (`URLList`); a capital starts a word (`imageUrl`); digits stand alone.
    const tokens = part.match(/[A-Z]{2,}s(?![a-z])|[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+/g) ?? [];
    for (let index = 0; index < tokens.length; index++) {
      const token = tokens[index]!;
      if (/^[0-9]+$/.test(token)) continue;
      // A version word: `v` or `V` standing alone before its digits (`v2`, `V10`).
      if ((token === 'v' || token === 'V') && /^[0-9]+$/.test(tokens[index + 1] ?? '')) continue;
      words.push(token.toLowerCase());
    }
  }
  return words;
}

/** Last words that only say "several of": `urlList`, `url_array`, `mimeTypeSet` are named for their items. */
const COLLECTION_WORDS = new Set(['list', 'array', 'arr', 'set']);

/** The words that name what a field holds: `fieldNameWords` without a last collection word. */
function headWords(name: string): string[] {
  const words = fieldNameWords(name);
  return words.length > 1 && COLLECTION_WORDS.has(words.at(-1) as string) ? words.slice(0, -1) : words;
}

/** Whether a property name's head word names a link (`LINK_WORDS`). */
export function isLinkFieldName(name: string): boolean {
  const head = headWords(name).at(-1);
  return head !== undefined && LINK_WORDS.has(head);
}

/** Whether a property name's head word, or its last two words joined, names a media type (`MEDIA_WORDS`). */
export function isMediaFieldName(name: string): boolean {
  const words = headWords(name);
  const head = words.at(-1);
  if (head === undefined) return false;
  return MEDIA_WORDS.has(head) || (words.length > 1 && MEDIA_WORDS.has(`${words.at(-2)}${head}`));
}

/** Whether a property name's head word names a collection of links (`LINK_COLLECTION_WORDS`). */
function isLinkCollectionName(name: string): boolean {
  const head = fieldNameWords(name).at(-1);
  return head !== undefined && LINK_COLLECTION_WORDS.has(head);
}

/** Whether an output subschema admits strings (its declared type, or `[type, "null"]`). */
function admitsStrings(node: unknown): boolean {
  return isRecord(node) && outputTypeOf(node)?.type === 'string';
}

/** The item schemas and templates below `node` through arrays only (`node` itself first). */
function throughArrays(node: unknown, template: string): { node: unknown; template: string }[] {
  const reached = [{ node, template }];
  for (let depth = 0; depth <= MAX_INSPECTED_SCHEMA_DEPTH; depth++) {
    const last = reached.at(-1)!;
    if (!isRecord(last.node) || outputTypeOf(last.node)?.type !== 'array') break;
    reached.push({ node: last.node.items, template: `${last.template}/*` });
  }
  return reached;
}

/**
 * The templates of the strings a named output field holds: itself when it is a string (or a
 * nullable one), or the items of an array of strings (`/urls/*`), with one more `/*` segment for
 * each level of arrays of arrays.
 */
function stringTemplatesOf(child: unknown, template: string): string[] {
  return throughArrays(child, template)
    .filter((reached) => admitsStrings(reached.node))
    .map((reached) => reached.template);
}

/**
 * The templates of the strings a link collection holds (`LINK_COLLECTION_WORDS`): for an object (or
 * objects in arrays), each string member and array of strings, whatever its name (JSON:API
 * `links: { self, next }`).
 */
function memberStringTemplatesOf(child: unknown, template: string): string[] {
  const templates: string[] = [];
  for (const reached of throughArrays(child, template)) {
    if (!isRecord(reached.node) || outputTypeOf(reached.node)?.type !== 'object' || !isRecord(reached.node.properties)) continue;
    for (const [name, member] of Object.entries(reached.node.properties)) {
      if (PROPERTY_NAME.test(name)) templates.push(...stringTemplatesOf(member, `${reached.template}/${name}`));
    }
  }
  return templates;
}
function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * An output node declares one type, or one type and `"null"` (the only union the pinned Ajv's
 * strict mode accepts). Returns the non-null type and whether `null` is allowed.
 */
function outputTypeOf(node: Record<string, unknown>): { type: string; nullable: boolean } | null {
  const { type } = node;
  if (typeof type === 'string') return { type, nullable: false };
  if (Array.isArray(type) && type.length === 2 && type.includes('null')) {
    const other = type.find((item) => item !== 'null');
    if (typeof other === 'string' && other !== 'null') return { type: other, nullable: true };
  }
  return null;
}

function emptyInspection(): SchemaInspection {
  return { problems: [], uriPointers: [], mediaPointers: [], scalarPaths: new Set(), propertyNames: new Set() };
}

/**
 * Checks that `schema` is an exact output schema (see `ToolSpec.output_schema`) and collects the
 * fields the seal path checks beyond the schema.
 */
export function inspectOutputSchema(schema: unknown): SchemaInspection {
  const inspection = emptyInspection();
  if (!isRecord(schema)) {
    inspection.problems.push('output_schema must be an object');
    return inspection;
  }
  const root = outputTypeOf(schema);
  if (root === null || root.type !== 'object' || root.nullable) {
    inspection.problems.push('output_schema root must be { "type": "object" } (model_result.data is an object)');
  }
  if (schema.$schema !== undefined && schema.$schema !== DRAFT_2020_12) {
    inspection.problems.push(`output_schema $schema must be ${DRAFT_2020_12}`);
  }
  walkOutput(schema, '', '', true, 0, true, inspection);
  // A field can be a link by `format` and by name (`url` with `format: "uri"`), or by name and as a
  // member of a link collection (`links: { href }`): each pointer once.
  inspection.uriPointers = [...new Set(inspection.uriPointers)];
  return inspection;
}

function walkOutput(
  node: unknown,
  schemaPath: string,
  template: string,
  throughObjectsOnly: boolean,
  depth: number,
  isRoot: boolean,
  inspection: SchemaInspection,
): void {
  const where = schemaPath === '' ? 'output_schema' : `output_schema${schemaPath}`;
  if (depth > MAX_INSPECTED_SCHEMA_DEPTH) {
    inspection.problems.push(`${where}: nested deeper than ${MAX_INSPECTED_SCHEMA_DEPTH}`);
    return;
  }
  if (!isRecord(node)) {
    inspection.problems.push(`${where}: every subschema must be an object (boolean schemas are not exact)`);
    return;
  }
  const declared = outputTypeOf(node);
  if (declared === null) {
    inspection.problems.push(`${where}: every subschema must declare one "type" (or one type and "null")`);
    return;
  }
  const { type } = declared;
  if (!TYPES.has(type)) {
    inspection.problems.push(`${where}: unknown type ${JSON.stringify(type)}`);
    return;
  }
  const types = [type];
  const allowed = new Set<string>(ANY_TYPE_KEYWORDS);
  for (const type of types) for (const keyword of KEYWORDS_BY_TYPE[type] ?? []) allowed.add(keyword);
  if (isRoot) for (const keyword of ROOT_ONLY) allowed.add(keyword);
  for (const keyword of Object.keys(node)) {
    if (!allowed.has(keyword)) {
      inspection.problems.push(
        `${where}: keyword ${JSON.stringify(keyword)} is not allowed here (output schemas use no composition, references or open objects, and only keywords of the declared type)`,
      );
    }
  }
  const bounded = node.enum !== undefined || node.const !== undefined;

  if (types.includes('string')) {
    if (!bounded && typeof node.maxLength !== 'number') inspection.problems.push(`${where}: a string needs "maxLength"`);
    if (node.format === 'uri') inspection.uriPointers.push(template);
  }
  if (types.includes('array')) {
    if (typeof node.maxItems !== 'number') inspection.problems.push(`${where}: an array needs "maxItems"`);
    const unique = uniqueItemsProblem(node, where);
    if (unique !== null) inspection.problems.push(unique);
    if (node.items === undefined) {
      inspection.problems.push(`${where}: an array needs "items"`);
    } else {
      walkOutput(node.items, `${schemaPath}/items`, `${template}/*`, false, depth + 1, false, inspection);
    }
  }
  if (types.includes('object')) {
    if (node.additionalProperties !== false) {
      inspection.problems.push(`${where}: an object needs "additionalProperties": false`);
    }
    if (!isRecord(node.properties)) {
      inspection.problems.push(`${where}: an object needs "properties"`);
      return;
    }
    for (const [name, child] of Object.entries(node.properties)) {
      if (!PROPERTY_NAME.test(name)) {
        inspection.problems.push(`${where}: property name ${JSON.stringify(name)} must match [A-Za-z0-9_]{1,64}`);
        continue;
      }
      if (isForbiddenKey(name)) {
        inspection.problems.push(
          `${where}: property ${JSON.stringify(name)} is a key the guard refuses in every value (FORBIDDEN_KEYS: it names a member of Object.prototype), so no output could hold it`,
        );
        continue;
      }
      inspection.propertyNames.add(name);
      const childTemplate = `${template}/${name}`;
      if (throughObjectsOnly) inspection.scalarPaths.add(childTemplate);
      if (isMediaFieldName(name)) inspection.mediaPointers.push(...stringTemplatesOf(child, childTemplate));
      if (isLinkFieldName(name)) inspection.uriPointers.push(...stringTemplatesOf(child, childTemplate));
      if (isLinkCollectionName(name)) inspection.uriPointers.push(...memberStringTemplatesOf(child, childTemplate));
      walkOutput(child, `${schemaPath}/properties/${name}`, childTemplate, throughObjectsOnly, depth + 1, false, inspection);
    }
  }
}
