import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ModelError } from '@toolseal/errors';
export const ajv = new Ajv2020();
export type GuardError = ModelError;
