import * as z from 'zod';
import { DestinationTestResult, ForceQuery, SourceTestResult, TestDestinationBody, TestSourceBody } from '../../domain/test-interface/schemas';
import { route } from './define';

/** Control plane: test interface (Basic email:token or Bearer). */
// One line per route: the manifest reads as a table.
// prettier-ignore
export const TEST_INTERFACE_ROUTES = [
  route({
    method: 'POST',
    path: '/v0/testDestination/{destination_id}',
    fn: 'testInterface',
    auth: 'account',
    summary: "Push a sample event through one destination's stages (user transformation, destination transform, send)",
    params: z.object({ destination_id: z.string().min(1).max(64) }),
    query: ForceQuery,
    body: TestDestinationBody,
    response: DestinationTestResult,
  }),
  route({
    method: 'POST',
    path: '/v0/testSource/{source_id}',
    fn: 'testInterface',
    auth: 'account',
    summary: 'Push a sample event through every destination connected to a source',
    params: z.object({ source_id: z.string().min(1).max(64) }),
    query: ForceQuery,
    body: TestSourceBody,
    response: SourceTestResult,
  }),
] as const;
