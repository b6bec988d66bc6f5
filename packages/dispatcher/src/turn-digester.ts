import type { ModelResult, Sha256Hex } from '@toolseal/contracts';
import type {
  CallBindingDigestInput,
  Digester,
  PrincipalRefInput,
  RequestDigestInput,
} from '@toolseal/digests';

/**
 * The host's digester for one turn, with the principal reference of the turn's principal computed
 * once instead of once per sealed call. Every other digest is delegated unchanged, so the values
 * are exactly the host digester's.
 */
export class TurnDigester implements Digester {
  readonly keyed: boolean;
  readonly #base: Digester;
  readonly #tenantId: string;
  readonly #subjectId: string;
  /** The principal reference of the turn's principal. */
  readonly principalRefValue: Sha256Hex;

  /** `principalRef` is `base.principalRef(principal)`, computed by the caller (or cached across turns). */
  constructor(base: Digester, principal: PrincipalRefInput, principalRef: Sha256Hex) {
    this.keyed = base.keyed;
    this.#base = base;
    this.#tenantId = principal.tenant_id;
    this.#subjectId = principal.subject_id;
    this.principalRefValue = principalRef;
  }

  digestText(text: string): Sha256Hex {
    return this.#base.digestText(text);
  }

  digestTagged(domain: string, fields: Record<string, unknown>): Sha256Hex {
    return this.#base.digestTagged(domain, fields);
  }

  principalRef(principal: PrincipalRefInput): Sha256Hex {
    return principal.tenant_id === this.#tenantId && principal.subject_id === this.#subjectId
      ? this.principalRefValue
      : this.#base.principalRef(principal);
  }

  requestDigest(input: RequestDigestInput): Sha256Hex {
    return this.#base.requestDigest(input);
  }

  resultDigest(modelResult: ModelResult): Sha256Hex {
    return this.#base.resultDigest(modelResult);
  }

  resultDigestFromCanonical(canonicalModelResult: string): Sha256Hex {
    return this.#base.resultDigestFromCanonical(canonicalModelResult);
  }

  callBindingDigest(input: CallBindingDigestInput): Sha256Hex {
    return this.#base.callBindingDigest(input);
  }
}
