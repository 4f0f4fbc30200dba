import path from 'node:path';
import { emptyStats, SimulatedMachine, type MachineOptions, type MachineStats } from './machine.js';

export interface FleetOptions extends Omit<MachineOptions, 'identity' | 'stateFile'> {
  count: number;
  /** Name prefix: machines are `<prefix> 1` … `<prefix> N`. */
  namePrefix?: string;
  /** Each machine keeps `machine-<i>.json` here (keys, registration, chain head). */
  stateDir?: string;
  identity?: MachineOptions['identity'];
}

/** N simulated machines in one process, started together, stopped together. */
export class Fleet {
  readonly machines: SimulatedMachine[];

  constructor(options: FleetOptions) {
    const prefix = options.namePrefix ?? 'Printer';
    this.machines = Array.from({ length: options.count }, (_, index) => {
      const number = index + 1;
      const slug = prefix.toLowerCase().replace(/[^a-z0-9]+/g, '-');
      return new SimulatedMachine({
        ...options,
        identity: {
          name: `${prefix} ${number}`,
          id: `${slug}-${number}`,
          serialNumber: `${slug.toUpperCase()}-${String(number).padStart(4, '0')}`,
          ...options.identity,
        },
        ...(options.stateDir ? { stateFile: path.join(options.stateDir, `machine-${number}.json`) } : {}),
      });
    });
  }

  /** Registers every machine (a few at a time); answers their deviceIds in order. */
  async register(): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < this.machines.length; i += 5) {
      ids.push(...(await Promise.all(this.machines.slice(i, i + 5).map((machine) => machine.register()))));
    }
    return ids;
  }

  /** Runs every machine; resolves when all have stopped. */
  run(): Promise<void> {
    return Promise.all(this.machines.map((machine) => machine.run())).then(() => undefined);
  }

  async stop(): Promise<void> {
    await Promise.all(this.machines.map((machine) => machine.stop()));
  }

  stats(): MachineStats {
    const total = emptyStats();
    for (const machine of this.machines) {
      for (const key of Object.keys(total) as (keyof MachineStats)[]) total[key] += machine.stats[key];
    }
    return total;
  }

  /** How many machines are in each state. */
  states(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const machine of this.machines) counts[machine.state] = (counts[machine.state] ?? 0) + 1;
    return counts;
  }
}
