// Test data may use dev-only packages.
export const payload = { ok: true };
