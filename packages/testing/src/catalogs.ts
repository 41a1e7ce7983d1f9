/** The shipped schema templates and profiles (`configs/`), read once. */
import path from 'node:path';
import { ProfileCatalog, SchemaCatalog } from '@tessera/search';

const configs = path.resolve(import.meta.dirname, '../../../configs');

export const schemaCatalog = new SchemaCatalog(path.join(configs, 'schemas'));
export const profileCatalog = new ProfileCatalog(path.join(configs, 'profiles'), schemaCatalog);
