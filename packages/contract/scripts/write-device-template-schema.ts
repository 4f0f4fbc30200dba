// Writes docs/device-template.schema.json from the zod schema of the device template file
// (`npm run schema:device-template`); the integration tests check that the file is current.
import fs from 'node:fs';
import path from 'node:path';
import { deviceTemplateJsonSchema } from '../src/device-template.js';

const target = path.resolve(import.meta.dirname, '../../../docs/device-template.schema.json');
fs.mkdirSync(path.dirname(target), { recursive: true });
fs.writeFileSync(target, `${JSON.stringify(deviceTemplateJsonSchema(), null, 2)}\n`);
process.stdout.write(`wrote ${path.relative(process.cwd(), target)}\n`);
