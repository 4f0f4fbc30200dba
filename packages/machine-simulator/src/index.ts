export * from './protocol.js';
export * from './client.js';
export * from './machine.js';
export * from './fleet.js';
export * from './ca-file.js';
export * from './until.js';
