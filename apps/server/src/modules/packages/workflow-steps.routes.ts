import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  ZWorkflowAddRequest,
  ZWorkflowDeleteRequest,
  ZWorkflowEditRequest,
  ZWorkflowReorderRequest,
  ZWorkflowStep,
  ZWorkflowSteps,
} from '@manifold/contract';
import { responses } from '../../lib/route-schemas.js';
import { callerOf } from '../../plugins/auth.js';

/** The workflow steps of a design package. */
export const workflowStepsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { packages } = app.services;
  const tags = ['packages'];

  app.post(
    '/ui/package/workflow/add',
    {
      schema: { tags, summary: 'Add a workflow step at the end', body: ZWorkflowAddRequest, response: responses(ZWorkflowStep) },
    },
    (request) => packages.addStep(request.body, callerOf(request)),
  );

  app.post(
    '/ui/package/workflow/edit',
    { schema: { tags, summary: 'Edit a workflow step', body: ZWorkflowEditRequest, response: responses(ZWorkflowStep) } },
    (request) => packages.editStep(request.body, callerOf(request)),
  );

  app.post(
    '/ui/package/workflow/delete',
    {
      schema: {
        tags,
        summary: 'Delete a workflow step; answers the remaining steps',
        body: ZWorkflowDeleteRequest,
        response: responses(ZWorkflowSteps),
      },
    },
    async (request) => ({ data: await packages.deleteStep(request.body, callerOf(request)) }),
  );

  app.post(
    '/ui/package/workflow/reorder',
    {
      schema: {
        tags,
        summary: 'Reorder the steps (stepIds: every step exactly once)',
        body: ZWorkflowReorderRequest,
        response: responses(ZWorkflowSteps),
      },
    },
    async (request) => ({ data: await packages.reorderSteps(request.body, callerOf(request)) }),
  );
};
