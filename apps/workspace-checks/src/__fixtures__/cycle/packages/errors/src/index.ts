export const error = 'e';
