export type Sha256Hex = string;
