// npm run docs:openapi: writes the OpenAPI documents the service generates into docs/.
import { writeFile } from 'node:fs/promises';
import { renderOpenApiDocuments } from './openapi-documents.ts';

const root = new URL('../../', import.meta.url);
for (const [path, text] of Object.entries(await renderOpenApiDocuments())) {
  await writeFile(new URL(path, root), text);
  console.log(`wrote ${path}`);
}
