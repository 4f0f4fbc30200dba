export * from './errors.js';
export * from './enums.js';
export * from './common.js';
export * from './time-zones.js';
export * from './user.js';
export * from './group.js';
export * from './admin.js';
export * from './permissions.js';
