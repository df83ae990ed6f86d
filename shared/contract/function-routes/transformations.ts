import * as z from 'zod';
import { IdParams, Success } from '../../domain/catalog/schemas';
import {
  LibrariesTestAnswer,
  Library,
  LibraryCreate,
  LibraryUpdate,
  LibraryVersion,
  LibraryVersionListed,
  PublishQuery,
  PublishRequest,
  SuiteRequest,
  Transformation,
  TransformationCreate,
  TransformationUpdate,
  TransformationVersion,
  ValidationOutput,
  VersionParams,
  VersionsQuery,
} from '../../domain/transformations/schemas';
import { route } from './define';

/** Control plane: transformations and libraries (Basic email:token or Bearer). */
// One line per route: the manifest reads as a table.
// prettier-ignore
export const TRANSFORMATIONS_ROUTES = [
  route({ method: 'POST', path: '/transformations', fn: 'transformations', auth: 'account', summary: 'Create a transformation (publish via query or body)', query: PublishQuery, body: TransformationCreate, response: Transformation }),
  route({ method: 'GET', path: '/transformations', fn: 'transformations', auth: 'account', summary: 'List transformations, drafts included', response: z.object({ transformations: z.array(Transformation) }) }),
  route({ method: 'GET', path: '/transformations/{id}', fn: 'transformations', auth: 'account', summary: 'Get a transformation (its latest revision)', params: IdParams, response: Transformation }),
  route({ method: 'POST', path: '/transformations/{id}', fn: 'transformations', auth: 'account', summary: 'Update a transformation: a new revision', params: IdParams, query: PublishQuery, body: TransformationUpdate, response: Transformation }),
  route({ method: 'DELETE', path: '/transformations/{id}', fn: 'transformations', auth: 'account', summary: 'Delete a transformation no destination uses', params: IdParams, response: Success }),
  route({ method: 'GET', path: '/transformations/{id}/versions', fn: 'transformations', auth: 'account', summary: 'List revisions', params: IdParams, query: VersionsQuery, response: z.object({ TransformationVersions: z.array(TransformationVersion) }) }),
  route({ method: 'GET', path: '/transformations/{id}/versions/{versionId}', fn: 'transformations', auth: 'account', summary: 'Get one revision', params: VersionParams, response: TransformationVersion }),
  route({ method: 'POST', path: '/libraries', fn: 'transformations', auth: 'account', summary: 'Create a library (publish via query or body)', query: PublishQuery, body: LibraryCreate, response: Library }),
  route({ method: 'GET', path: '/libraries', fn: 'transformations', auth: 'account', summary: 'List libraries', response: z.object({ libraries: z.array(Library) }) }),
  route({ method: 'GET', path: '/libraries/{id}', fn: 'transformations', auth: 'account', summary: 'Get a library (its latest revision)', params: IdParams, response: Library }),
  route({ method: 'POST', path: '/libraries/{id}', fn: 'transformations', auth: 'account', summary: 'Update a library: a new revision', params: IdParams, query: PublishQuery, body: LibraryUpdate, response: Library }),
  route({ method: 'DELETE', path: '/libraries/{id}', fn: 'transformations', auth: 'account', summary: 'Delete a library no transformation imports', params: IdParams, response: Success }),
  route({ method: 'GET', path: '/libraries/{id}/versions', fn: 'transformations', auth: 'account', summary: 'List revisions', params: IdParams, query: VersionsQuery, response: z.object({ libraryVersions: z.array(LibraryVersionListed) }) }),
  route({ method: 'GET', path: '/libraries/{id}/versions/{versionId}', fn: 'transformations', auth: 'account', summary: 'Get one revision', params: VersionParams, response: LibraryVersion }),
  route({ method: 'POST', path: '/transformations/libraries/publish', fn: 'transformations', auth: 'account', summary: 'Test, then publish revisions all together (400 with results when a test fails)', body: PublishRequest, response: z.object({ published: z.literal(true) }) }),
  route({ method: 'POST', path: '/transformations/libraries/test', fn: 'transformations', auth: 'account', summary: 'Test revisions on their testInput (or the default events)', body: PublishRequest, response: LibrariesTestAnswer }),
  route({ method: 'POST', path: '/transformations/publish', fn: 'transformations', auth: 'account', summary: 'Run test suites, then publish (200 with published:false when a test fails)', body: SuiteRequest, response: z.object({ published: z.boolean(), validationOutput: ValidationOutput }) }),
  route({ method: 'POST', path: '/transformations/tests/run', fn: 'transformations', auth: 'account', summary: 'Run test suites with expected outputs', body: SuiteRequest, response: z.object({ pass: z.boolean(), message: z.string().optional(), validationOutput: ValidationOutput }) }),
] as const;
