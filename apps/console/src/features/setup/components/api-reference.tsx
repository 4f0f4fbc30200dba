import SwaggerUI from 'swagger-ui-react';
import 'swagger-ui-react/swagger-ui.css';
import './api-reference.css';

/**
 * The OpenAPI document rendered by Swagger UI (React components, no inline scripts or eval, so it
 * runs under the console's Content-Security-Policy). Read-only: requests are not sent from here.
 * This module is imported only by the API reference screen, so the viewer is a chunk of its own.
 */
export function ApiReference({ spec }: { spec: object }) {
  return (
    <div className="api-reference">
      <SwaggerUI spec={spec} supportedSubmitMethods={[]} docExpansion="list" defaultModelsExpandDepth={-1} deepLinking={false} />
    </div>
  );
}
