import type { ToolContract } from '@toolseal/contracts';

/**
 * Bounds on a handler's output, checked before any schema validation (the guard's `JsonLimits`).
 * Depth counts from `data` itself (the fixed envelope around it gets one extra level); item, key,
 * string and value counts apply to the whole raw output; bytes are measured on the RFC 8785
 * encoding of `data`.
 */
export interface OutputLimits {
  /** Largest UTF-8 length of the RFC 8785 encoding of `data`, in bytes. */
  maxBytes: number;
  /** Deepest nesting of objects and arrays inside `data` (`data` itself is depth 1). */
  maxDepth: number;
  /** Most items in any one array. */
  maxArrayItems: number;
  /** Most keys in any one object. */
  maxObjectKeys: number;
  /** Longest string, in UTF-16 code units. */
  maxStringLength: number;
  /** Most values in the whole output. */
  maxTotalNodes: number;
}

/**
 * Where a tool may link to: checked on every output field whose schema says `format: "uri"`, and on
 * every string field (a nullable string, or an array, or array of arrays, of strings) whose name's
 * head word is a link word. A name is split into words at underscores, case changes (`imageURL`,
 * `URLList` is `url`, `list`) and digits, dropping numbers and version words (`v2`) and a last
 * `list`, `array`, `arr` or `set`; only the last word left, the head, counts: `url`, `uri`, `href`,
 * `link`, `src`, `website`, `homepage`, `permalink`, `hyperlink`, or a plural of one (`url`,
 * `url2`, `URL_2`, `url_v2`, `sourceUrl`, `imageUrl1`, `image_urls`, `urlList`, `download_link`,
 * `src`). `link_text`, `url_count`, `curl`, `cufflink` and the one-word `imageurl` are not link
 * fields. An object whose
 * head word is a plural link word (`links`, `urls`) holds a link in every string member and array
 * of strings (JSON:API `links: { self, next }`).
 */
export interface LinkPolicy {
  /**
   * Extra output fields holding links, as pointer templates into `data` in which a `*` segment
   * stands for any array index (segments `hits`, `*`, `source`). Fields with `format: "uri"` or a
   * link name (see `LinkPolicy`) are found automatically; list here a link field the name rule
   * misses (`urlList`, `imageurl`).
   */
  pointers?: readonly string[];
  /** Allowed URL schemes, lowercase, without the colon (e.g. `https`). */
  schemes: readonly string[];
  /**
   * Allowed hosts, lowercase, compared exactly with the URL's host (a port other than the scheme's
   * default must be listed, e.g. `docs.example.com:8443`). No wildcards.
   */
  hosts: readonly string[];
}

/**
 * Everything a host registers about one tool at start-up. It is trusted configuration: the registry
 * validates it once and compiles its schemas, and a spec that is not exact fails start-up with a
 * `RegistryError`. It is JSON data, as if read from a file: a member holding a function (a handler
 * kept beside it), a class instance (a schema library's schema), a `Date` or a cycle is refused
 * with the tool and the path named, and so is any field not listed here.
 */
export interface ToolSpec {
  /** Tool name, effect kind and the six revisions, copied into every `protected_audit.tool_contract`. */
  contract: ToolContract;
  /**
   * The system that supplies this tool's data, copied into `provenance.source_label`. Never taken
   * from the handler.
   */
  source_label: string;
  /**
   * JSON Schema 2020-12 of the arguments, compiled once with the pinned Ajv. It must leave no value
   * open, so that arguments hold only what the contract lists (the registry refuses it otherwise;
   * the package README, "What an output contract checks", has the full rule):
   * - every subschema saying what a value may be (the root; each `properties` and `prefixItems`
   *   entry; `items`; `unevaluatedItems` given as a schema) declares `type`, `const` or `enum`, is
   *   `false`, or is a `$ref` to a definition or an `allOf`/`anyOf`/`oneOf` whose every target and
   *   branch does. `{}`, `true`, `{ "description": ... }` or a lone `not` would let the model nest
   *   any keys (`approved`, `tenant_id`, `role`) there;
   * - every subschema with `type: "object"` or any object keyword, wherever it sits (branches,
   *   `not`, `dependentSchemas`, definitions), says `additionalProperties: false` (or
   *   `unevaluatedProperties: false`); both are `false` or absent, never a schema or `true`;
   * - a `$ref` names `#/$defs/<name>` or `#/definitions/<name>` of the root;
   * - `if`, `then`, `else` and `contains` (with `minContains`/`maxContains`) are refused: the pinned
   *   Ajv counts the keys and items a failing `if` evaluated, and every item once `contains` is
   *   there, as evaluated, so an `unevaluatedProperties: false` or `unevaluatedItems: false` beside
   *   or above them would reject nothing (vary the fields with a `oneOf` of exact objects);
   * - `patternProperties`, `dependencies`, `$dynamicRef`, `$recursiveRef`, anchors, `nullable` and
   *   `contentSchema` are refused;
   * - every array has `items` (or `prefixItems` with `maxItems` no longer than it);
   * - no subschema is `true`, and only the root may have an `$id` or `$schema`.
   */
  input_schema: object;
  /**
   * Exact JSON Schema 2020-12 of `model_result.data`: a `type: "object"` root; every node declares
   * `type`; every object lists its `properties` and says `additionalProperties: false`; every array
   * has `items` and `maxItems`; every string has `maxLength` (or `enum`/`const`); no composition
   * (`$ref`, `anyOf`, `oneOf`, `allOf`, `not`, `if`) so exactness can be checked at start-up.
   * Property names are `[A-Za-z0-9_]{1,64}` and none may be a sensitive or control key.
   */
  output_schema: object;
  /**
   * Output fields bound to the input: output pointer (into `data`) → input pointer (into the
   * arguments) whose value it must equal, e.g. `{ "/order_ref": "/order_id" }`. An output field that
   * is present must equal an input value that is present; both may be absent together.
   */
  echo?: Readonly<Record<string, string>>;
  /** Output bounds; unspecified ones come from `DEFAULT_OUTPUT_LIMITS`. */
  limits?: Partial<OutputLimits>;
  /**
   * The format of `provenance.resource_revision`: a regular expression (Unicode mode) written
   * anchored, starting with `^` and ending with `$`, matched against the whole value: the registry
   * compiles it as `^(?:pattern)$`, so an alternation such as `^order-[0-9]+|r[0-9]+$` cannot let a
   * value that merely starts or ends like a revision through.
   */
  resource_revision: { pattern: string };
  /** Allowed link schemes and hosts. Required when the output schema has a link field (`LinkPolicy`). */
  links?: LinkPolicy;
  /**
   * Allowed MIME types (lowercase, no parameters) for output string fields (a nullable string, or
   * an array, or array of arrays, of strings) named for a media type: the name's head word (split
   * into words as for `LinkPolicy`) is `mime`, `mimetype`, `mediatype` or `contenttype`, or its
   * last two words joined are, optionally plural (`mime`, `media_type`, `mimeType`, `MIME_TYPE`,
   * `contentType2`, `file_media_types`; not `mime_type_known`). Compared as whole strings ignoring
   * ASCII case only (a value with any character outside printable ASCII is refused). Required when
   * the output schema declares such a field.
   */
  media_types?: readonly string[];
  /**
   * Per-tool changes to the guard's sensitive/control key list, scanned recursively in `data`,
   * and read the same way for link parameter names and for the keys inside a string of `data`
   * holding JSON (where an `extra` name counts as a credential's): `extra` names more keys to
   * refuse; `allow` lifts names this tool's business data really uses
   * (a survey's `response_id`, a lease's `subtenant_id`), compared on the guard's normalized form,
   * exactly. Lifting a name weakens the scan for it in this tool's output only. Each entry must be
   * a property the output schema declares, and never a credential or a control field of the
   * boundary nor a non-ASCII name (the guard's `isLiftableKeyName`): the registry refuses either at start-up.
   */
  sensitive_keys?: { extra?: readonly string[]; allow?: readonly string[] };
  /**
   * Whether this tool may return incomplete results (`complete: false`, e.g. one page of several)
   * and truncated ones (`truncated: true`). Default `false`: results must be complete.
   */
  allow_incomplete?: boolean;
}

/** Identity of the trusted control plane, used as provenance of every dispatcher-made error. */
export interface ControlProvenance {
  /** `provenance.source_label` of error results. */
  source_label: string;
  /** `provenance.producer_revision` of error results. */
  producer_revision: string;
}
