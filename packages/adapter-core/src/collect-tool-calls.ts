import type { ParseToolCallsOutcome } from '@toolseal/contracts';
import {
  createToolCallCollector,
  resolveMaxCallIdLength,
  type ToolCallCollector,
  type ToolCallCollectorOptions,
} from './create-tool-call-collector.js';
import { isDisplaySafeIdentifier, MAX_PROVIDER_ID_LENGTH } from './is-well-formed-identifier.js';
import { readOwnData } from './read-own-data.js';
import { rejectMalformedToolCall, type ParseRejection } from './reject-malformed-tool-call.js';
import type { AdapterSettings } from './resolve-adapter-settings.js';

/**
 * The frame every `parseToolCalls` shares around its provider-specific part. It reads the response
 * id from own data property `idKey` and refuses the response (`MALFORMED_TOOL_CALL`,
 * `malformed_response`) unless it is a well-formed identifier; starts a collector for that id;
 * runs `visit`, which feeds the response's calls to the collector and returns the first
 * rejection, or `null`; and answers the collected calls. `options` go to the collector.
 *
 * Never throws on the response: anything thrown while reading it (only a hostile object, such as a
 * proxy with throwing traps, can throw) refuses it as `malformed_response`. Bad `options` (the
 * adapter's own code, e.g. a `maxCallIdLength` over 256) throw a `TypeError` before the response is
 * read, rather than turning every response into a refusal.
 */
export function collectToolCalls(
  response: unknown,
  idKey: string,
  settings: AdapterSettings,
  visit: (response: object, collector: ToolCallCollector) => ParseRejection | null,
  options?: ToolCallCollectorOptions,
): ParseToolCallsOutcome {
  resolveMaxCallIdLength(options);
  try {
    const responseId = readOwnData(response, idKey);
    // readOwnData finds no id on a non-object, so a well-formed id implies an object.
    if (!isDisplaySafeIdentifier(responseId, MAX_PROVIDER_ID_LENGTH) || typeof response !== 'object' || response === null) {
      return rejectMalformedToolCall('malformed_response');
    }
    const collector = createToolCallCollector(settings.identity, responseId, settings.limits, options);
    return visit(response, collector) ?? collector.finish();
  } catch {
    return rejectMalformedToolCall('malformed_response');
  }
}
