import { z } from 'zod';
import { configDocumentSchema } from './src/config/schema.js';
const j = z.toJSONSchema(configDocumentSchema, { io: 'input', reused: 'ref' }) as any;
console.log(Object.keys(j), Object.keys(j.$defs ?? {}), JSON.stringify(j).slice(0, 400));
