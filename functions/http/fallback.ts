/** The catch-all route: unknown paths answer 404 in the spec's error shape. */
import { notFoundResponse } from '@tessera/http';

export const notFound = async () => notFoundResponse();
