export const guard = 'g';
