export function environmentTracer(): unknown {
  if (!process.env.AWS_LAMBDA_FUNCTION_NAME) return undefined;
  return process.env.API_KEY_SERVICE_TRACER === 'off' ? undefined : loadTracer();
}
function loadTracer() {
  // eslint-disable-next-line
  const { Tracer } = require('@aws-lambda-powertools/tracer');
  return new Tracer({});
}
