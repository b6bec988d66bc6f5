export const digest = 'd';
