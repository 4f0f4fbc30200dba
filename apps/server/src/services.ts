import type { createModules } from './app.js';
import type { Core } from './modules/module.js';

type UnionToIntersection<U> = (U extends unknown ? (union: U) => void : never) extends (all: infer I) => void ? I : never;

/** What the modules offer, merged: each module's factory declares its own services. */
type ModuleServices = UnionToIntersection<Awaited<ReturnType<typeof createModules>>[number]['services']>;

/** Everything a route may call: the core every module shares plus every module's services. */
export type Services = Core & ModuleServices;
