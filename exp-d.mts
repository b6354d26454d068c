import { configJsonSchema } from './src/config/index.js';
console.log(JSON.stringify(configJsonSchema(), null, 2));
