/**
 * A loopback server speaking the AWS wire protocols of the few calls a deploy and a function's cold start
 * make: STS GetCallerIdentity (query protocol, XML; or JSON 1.0), CloudFormation DescribeStacks (query
 * protocol) of the stacks it is given, SSM GetParameter and Secrets Manager GetSecretValue (JSON 1.1).
 * Point the SDK at it with `AWS_ENDPOINT_URL`. It records each call.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export const ACCOUNT = '123456789012';

export interface AwsLoopback {
  url: string;
  /** `Service.Operation` of each call, in order. */
  calls: string[];
  close(): Promise<void>;
}

export async function startAwsLoopback(
  options: {
    parameters?: Record<string, string>;
    secrets?: Record<string, string>;
    /** CloudFormation stacks by name, each with its outputs. */
    stacks?: Record<string, Record<string, string>>;
  } = {},
): Promise<AwsLoopback> {
  const calls: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const target = String(req.headers['x-amz-target'] ?? '');
      const json = (status: number, value: unknown, type = 'application/x-amz-json-1.1') => {
        res.writeHead(status, { 'content-type': type });
        res.end(JSON.stringify(value));
      };
      const identity = { Account: ACCOUNT, Arn: `arn:aws:iam::${ACCOUNT}:user/deployer`, UserId: 'AIDATEST' };
      const form = new URLSearchParams(body);
      if (form.get('Action') === 'DescribeStacks') {
        const name = form.get('StackName') ?? '';
        calls.push(`CloudFormation.DescribeStacks ${name}`);
        const outputs = options.stacks?.[name];
        if (!outputs) {
          res.writeHead(400, { 'content-type': 'text/xml' });
          res.end(
            '<ErrorResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/"><Error><Type>Sender</Type>' +
              `<Code>ValidationError</Code><Message>Stack with id ${name} does not exist</Message></Error>` +
              '<RequestId>1</RequestId></ErrorResponse>',
          );
          return;
        }
        const members = Object.entries(outputs)
          .map(
            ([key, value]) =>
              `<member><OutputKey>${key}</OutputKey><OutputValue>${value}</OutputValue></member>`,
          )
          .join('');
        res.writeHead(200, { 'content-type': 'text/xml' });
        res.end(
          '<DescribeStacksResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/"><DescribeStacksResult><Stacks><member>' +
            `<StackName>${name}</StackName><StackId>arn:aws:cloudformation:us-east-1:${ACCOUNT}:stack/${name}/1</StackId>` +
            `<StackStatus>CREATE_COMPLETE</StackStatus><CreationTime>2026-01-01T00:00:00Z</CreationTime><Outputs>${members}</Outputs>` +
            '</member></Stacks></DescribeStacksResult><ResponseMetadata><RequestId>1</RequestId></ResponseMetadata></DescribeStacksResponse>',
        );
        return;
      }
      if (form.get('Action') === 'GetCallerIdentity') {
        calls.push('STS.GetCallerIdentity');
        res.writeHead(200, { 'content-type': 'text/xml' });
        res.end(
          '<GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><GetCallerIdentityResult>' +
            `<Arn>${identity.Arn}</Arn><UserId>${identity.UserId}</UserId><Account>${ACCOUNT}</Account>` +
            '</GetCallerIdentityResult><ResponseMetadata><RequestId>1</RequestId></ResponseMetadata></GetCallerIdentityResponse>',
        );
        return;
      }
      if (target.endsWith('.GetCallerIdentity')) {
        calls.push('STS.GetCallerIdentity');
        return json(200, identity, 'application/x-amz-json-1.0');
      }
      const input = body ? (JSON.parse(body) as Record<string, string>) : {};
      if (target === 'AmazonSSM.GetParameter') {
        calls.push('SSM.GetParameter');
        const value = options.parameters?.[input.Name ?? ''];
        if (value === undefined)
          return json(400, { __type: 'ParameterNotFound', message: `Parameter ${input.Name} not found.` });
        return json(200, {
          Parameter: { Name: input.Name, Type: 'SecureString', Value: value, Version: 1, DataType: 'text' },
        });
      }
      if (target === 'secretsmanager.GetSecretValue') {
        calls.push('SecretsManager.GetSecretValue');
        const value = options.secrets?.[input.SecretId ?? ''];
        if (value === undefined)
          return json(400, {
            __type: 'ResourceNotFoundException',
            message: 'Secrets Manager cannot find it.',
          });
        return json(200, { ARN: input.SecretId, Name: 'secret', SecretString: value, VersionId: '1' });
      }
      calls.push(`unknown ${target || body.slice(0, 80)}`);
      json(400, { __type: 'UnknownOperationException', message: `Not spoken here: ${target}` });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
