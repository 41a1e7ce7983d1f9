/**
 * Keys of inference and LLM endpoints come from Secrets Manager or SSM Parameter Store, never from the
 * function's plain environment: the stacks set `<VAR>_SECRET_ARN` or `<VAR>_PARAMETER`, and every function
 * bundle resolves them once at cold start, before its handler module (and so any env.ts) is loaded.
 */
import { createRequire } from 'node:module';
import type * as SecretsManager from '@aws-sdk/client-secrets-manager';
import type * as Ssm from '@aws-sdk/client-ssm';
import { platformEnv, secretReferences, setSecretSetting } from './env';
import { SECRET_SETTINGS } from './secret-settings';

export { SECRET_SETTINGS } from './secret-settings';

const requireClient = createRequire(import.meta.url);
/**
 * The two clients are loaded only when a reference is set, and by a `require` esbuild leaves to run time
 * (the name is not a literal), so the bundles do not carry them (about 1.8 MB): in Lambda, Node's CommonJS
 * lookup finds them on NODE_PATH in the runtime's own AWS SDK (`/var/runtime/node_modules`); elsewhere in
 * this package's dependencies.
 */
function load<T>(name: string): T {
  return requireClient(name) as T;
}

/**
 * Reads each referenced secret and sets its variable; answers the variables set. A variable set directly
 * (a local run) is left alone when it has no reference. Throws naming the variable when a secret cannot be
 * read, so the function fails at start rather than calling an endpoint without its key.
 */
export async function resolveSecretSettings(): Promise<string[]> {
  const references = secretReferences(SECRET_SETTINGS);
  if (references.length === 0) return [];
  const config = { region: platformEnv.awsRegion };
  let secrets: SecretsManager.SecretsManagerClient | undefined;
  let parameters: Ssm.SSMClient | undefined;
  await Promise.all(
    references.map(async ({ variable, source }) => {
      let value: string | undefined;
      try {
        if ('secretArn' in source) {
          const sdk = load<typeof SecretsManager>(['@aws-sdk', 'client-secrets-manager'].join('/'));
          secrets ??= new sdk.SecretsManagerClient(config);
          value = (await secrets.send(new sdk.GetSecretValueCommand({ SecretId: source.secretArn })))
            .SecretString;
        } else {
          const sdk = load<typeof Ssm>(['@aws-sdk', 'client-ssm'].join('/'));
          parameters ??= new sdk.SSMClient(config);
          const answer = await parameters.send(
            new sdk.GetParameterCommand({ Name: source.parameterName, WithDecryption: true }),
          );
          value = answer.Parameter?.Value;
        }
      } catch (error) {
        const from = 'secretArn' in source ? source.secretArn : source.parameterName;
        throw new Error(`Cannot read ${variable} from ${from}: ${(error as Error).message}`, {
          cause: error,
        });
      }
      if (!value) throw new Error(`${variable}: the secret it names holds no string value`);
      setSecretSetting(variable, value);
    }),
  );
  return references.map((reference) => reference.variable);
}
