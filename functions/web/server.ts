/** The web client's server as a response-streaming Lambda function (stacks/web.ts). */
export { handler as webServer } from '@tessera/web-server/lambda';
