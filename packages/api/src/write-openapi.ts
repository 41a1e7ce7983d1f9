/** `npm run openapi`: writes the OpenAPI document of every route to docs/openapi.json. */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { openApiJson } from './openapi';

export const OPENAPI_FILE = path.resolve(import.meta.dirname, '../../../docs/openapi.json');

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  writeFileSync(OPENAPI_FILE, openApiJson());
  console.log(`wrote ${path.relative(process.cwd(), OPENAPI_FILE)}`);
}
