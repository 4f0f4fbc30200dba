import { pipeline, type Readable, type Transform } from 'node:stream';

/** Pipes the stages together; an error in any stage destroys the others and surfaces on the last. */
export function chain(source: Readable, ...stages: Transform[]): Readable {
  return pipeline(source, ...(stages as [Transform]), () => undefined);
}
