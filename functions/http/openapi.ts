/** `GET /openapi.json`: the OpenAPI document of every route, built once per process from @tessera/api. */
import { OpenApi } from '@tessera/api';
import { openApiDocument } from '@tessera/api/openapi';
import { httpRoute } from '@tessera/http';

let document: ReturnType<typeof openApiDocument> | undefined;

export const openapi = httpRoute(OpenApi.openapi, () => {
  document ??= openApiDocument();
  return document;
});
